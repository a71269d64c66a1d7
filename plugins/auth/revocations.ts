import { messageOf } from 'fw'
import type { AuthRuntime } from './runtime.js'

/** The PostgreSQL channel on which instances announce the token ids they revoke. */
export const REVOKED_CHANNEL = 'fw_auth_revoked'

/**
 * Listens for the token ids other instances revoke and evicts them from this instance's cache
 * (tapped on `listen`: commands and in-memory tests never open the listening connection). On
 * PostgreSQL the cache is trusted only while the connection listens (see `token-cache.ts`); on
 * PGlite nothing arrives and the cache keeps its time window.
 */
export function followRevocations(rt: AuthRuntime): void {
  const delivered = rt.db.subscribe(
    REVOKED_CHANNEL,
    (tokenId) => rt.cache.deleteTokenId(tokenId),
    (listening) => rt.cache.setListening(listening),
  )
  if (delivered) rt.cache.followRevocations()
}

/** How long a revocation waits for every instance to confirm it evicted the token. */
const CONFIRM_MS = 500

/**
 * A token row was revoked (its update committed): evicts it here, tells the other instances and
 * waits (at most `CONFIRM_MS`) until each listening one confirms it evicted it, so that once the
 * logout is answered no instance trusts the token any more. A notification that cannot be sent or
 * confirmed is logged, not thrown: the row is revoked whatever happens, and an instance that
 * missed it refuses the token within its cache window (`tokenCacheMs`, 1 s).
 */
export async function announceRevocation(rt: AuthRuntime, tokenId: string): Promise<void> {
  rt.cache.deleteTokenId(tokenId)
  // An app that never listens (a command, an in-memory test) has no confirmations to wait for.
  const confirm = rt.cache.followsRevocations
  try {
    const confirmed = await rt.db.notify(
      REVOKED_CHANNEL,
      tokenId,
      confirm ? { confirmMs: CONFIRM_MS } : {},
    )
    if (!confirmed)
      rt.kernel.logger.warn('auth: not every instance confirmed a revoked token in time', {
        waitedMs: CONFIRM_MS,
      })
  } catch (error) {
    rt.kernel.logger.warn('auth: could not announce a revoked token to other instances', {
      error: messageOf(error),
    })
  }
}
