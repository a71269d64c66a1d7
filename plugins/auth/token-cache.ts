import type { Identity } from 'fw'
import type { ReportedClaims } from './events.js'

/** A credential that verified, with what it resolved to. */
export interface CachedCredential {
  readonly identity: Identity
  readonly claims: ReportedClaims | undefined
  /** Unix seconds the credential expires at; null: never. Rechecked on every hit. */
  readonly expires: number | null
  /** Unix milliseconds it was verified against the database. */
  readonly checkedAt: number
}

/**
 * Verified credentials, keyed by the exact credential string, kept for `ttlMs` (default 1 s): a
 * hit skips the signature check and the database row read. Expiry is rechecked on every hit; a
 * revocation on this instance evicts at once. `ttlMs` 0 turns the cache off (one indexed query
 * per request).
 *
 * Revocations on other instances: on PostgreSQL each instance `LISTEN`s for the token ids others
 * revoke (`revocations.ts`) and evicts them as they arrive, so a logout anywhere is refused
 * everywhere at once. That needs care in three places:
 *
 * - While the listening connection is down, notifications are lost, so the cache is not used at
 *   all (every request reads its row) and nothing is stored; when it is back (listening again)
 *   the cache starts empty. A connection that dies without anyone noticing (no reset, no
 *   keepalive answer yet) can still miss one: each entry lives `ttlMs` at most, so a missed
 *   notification never extends trust beyond the cache window, the behaviour without notifications.
 * - A verification that read its row before a revocation committed, and stores its result after
 *   the eviction, would cache a revoked credential: every eviction by token id moves an epoch on,
 *   and a result is stored only if the epoch is the one read before its row was (`epoch()`).
 * - Without notifications (PGlite, or an app that never listens), a revocation on another instance
 *   takes effect here within `ttlMs`. One process owns a PGlite database, so there it has none.
 */
export class TokenCache {
  readonly #entries = new Map<string, CachedCredential>()
  readonly #ttlMs: number
  readonly #max: number
  #epoch = 0
  /** Whether revocations arrive as notifications, so the cache is only trusted while listening. */
  #followsRevocations = false
  #listening = false

  constructor(ttlMs: number, max = 10_000) {
    this.#ttlMs = ttlMs
    this.#max = max
  }

  /** Whether the cache may be used now. */
  get #usable(): boolean {
    return this.#ttlMs > 0 && (!this.#followsRevocations || this.#listening)
  }

  /** Read before a credential's row is read; hand it back to `set`. */
  epoch(): number {
    return this.#epoch
  }

  get(key: string, nowMs: number): CachedCredential | undefined {
    if (!this.#usable) return undefined
    const hit = this.#entries.get(key)
    if (hit === undefined) return undefined
    const fresh = nowMs - hit.checkedAt < this.#ttlMs && nowMs >= hit.checkedAt
    if (fresh && (hit.expires === null || hit.expires > Math.floor(nowMs / 1000))) return hit
    this.#entries.delete(key)
    return undefined
  }

  /** Stores a verified credential, unless a revocation came since `epoch` was read. */
  set(key: string, value: CachedCredential, epoch: number): void {
    if (!this.#usable || epoch !== this.#epoch) return
    if (this.#entries.size >= this.#max) {
      // Oldest first: a Map iterates in insertion order.
      const oldest = this.#entries.keys().next()
      if (!oldest.done) this.#entries.delete(oldest.value)
    }
    this.#entries.set(key, value)
  }

  delete(key: string): void {
    this.#epoch += 1
    this.#entries.delete(key)
  }

  /** Forgets every credential of a token id (a revocation by id, here or on another instance). */
  deleteTokenId(tokenId: string): void {
    this.#epoch += 1
    for (const [key, value] of this.#entries) {
      if (value.identity.tokenId === tokenId) this.#entries.delete(key)
    }
  }

  /** Whether revocations arrive as notifications (`followRevocations()` was called). */
  get followsRevocations(): boolean {
    return this.#followsRevocations
  }

  /** From now on revocations arrive as notifications: the cache is used only while listening. */
  followRevocations(): void {
    if (this.#followsRevocations) return
    this.#followsRevocations = true
    this.#forgetAll()
  }

  /** The listening connection is up (`true`) or down: either way, what is cached is forgotten. */
  setListening(listening: boolean): void {
    this.#listening = listening
    this.#forgetAll()
  }

  #forgetAll(): void {
    this.#epoch += 1
    this.#entries.clear()
  }
}
