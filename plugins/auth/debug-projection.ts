// The `auth` key of the debug payload: the credential that authenticated the request, projected from
// the last `auth.resolved` (plugins/debug/README.md "The payload").
import type { ProjectionInput } from 'fw/plugins/debug'

const CLAIMS = ['sub', 'iss', 'aud', 'iat', 'exp', 'nbf', 'jti', 'userid', 'username'] as const

/** The last `auth.resolved` of the request: who, with which credential, and any refusal. */
export function authProjection(i: ProjectionInput, previous: unknown): unknown {
  const last = i.of('auth.resolved').at(-1)
  if (last === undefined) return previous
  const d = last.data
  const out: Record<string, unknown> = {
    what: d.credential,
    user: d.user,
    credential: d.credential,
    source: d.source,
    expires: d.expires,
  }
  if (d.action !== undefined) out.action = d.action
  if (d.refused !== undefined) out.refused = d.refused
  if (d.claims !== undefined) {
    const claims: Record<string, unknown> = {}
    for (const k of CLAIMS) if (d.claims[k] !== undefined) claims[k] = d.claims[k]
    out.claims = claims
  }
  // A refused token's claims, read without verification: marked so nobody takes them as proof.
  if (d.unverified === true) out.unverified = true
  return out
}
