// `auth.resolved`, recorded one way: by the `authenticate` taps (who a request is from), by the
// handlers that sign a user in (a login, a token grant) and by those that sign out.
import type { EventMap, RequestContext } from 'fw'
import './events.js'
import type { IssuedToken } from './tokens.js'

/** Who was resolved: an identity or a user row (`id`, `username`, `usertype`). */
export interface ResolvedWho {
  readonly id?: unknown
  readonly username?: string | undefined
  readonly usertype?: number | undefined
}

/** What `auth.resolved` says besides who. */
export type Resolution = Omit<EventMap['auth.resolved'], 'user'>

/** Records `auth.resolved`: `who` (undefined: nobody) and how. */
export function recordResolved(
  ctx: RequestContext,
  who: ResolvedWho | undefined,
  data: Resolution,
): void {
  ctx.log.record('auth.resolved', {
    user:
      who === undefined
        ? null
        : { id: Number(who.id), username: who.username ?? '', usertype: who.usertype ?? 0 },
    ...data,
  })
}

/** Records a sign-out by a handler (`logout`, `web-logout`): nobody, no credential. */
export function recordSignedOut(ctx: RequestContext, action: string): void {
  recordResolved(ctx, undefined, { credential: null, source: null, expires: null, action })
}

/** Records a sign-in that issued an access token (`login`, `login2fa`, an OAuth grant). */
export function recordTokenIssued(
  ctx: RequestContext,
  user: ResolvedWho,
  issued: Pick<IssuedToken, 'expires' | 'claims'>,
  action: string,
): void {
  recordResolved(ctx, user, {
    credential: 'accessToken',
    source: null,
    expires: issued.expires,
    claims: issued.claims,
    action,
  })
}
