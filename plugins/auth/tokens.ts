import { createHash, randomUUID, timingSafeEqual, type KeyObject } from 'node:crypto'
import { createRequire } from 'node:module'
import type * as Jwt from 'jsonwebtoken'
import type { Identity } from 'fw'
import type { ReportedClaims } from './events.js'
import { announceRevocation } from './revocations.js'
import { grantOfRow, nowSeconds, query, read, type AuthRuntime } from './runtime.js'

let loaded: typeof Jwt | undefined

/**
 * jsonwebtoken, loaded on the first token signed or checked: loading it (≈30 ms) is not the cost
 * of every `fw` command that boots the app.
 */
function jwt(): typeof Jwt {
  return (loaded ??= createRequire(import.meta.url)('jsonwebtoken') as typeof Jwt)
}

/** `nbf` is backdated by 12 hours so that clients with slow clocks are not refused. */
export const NBF_BACKDATE = 43_200
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Lowercase hex sha256 of a credential: what `auth_tokens.token_hash` stores. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex')
}

/** An issued access token. */
export interface IssuedToken {
  readonly token: string
  readonly id: string
  /** Unix seconds, or null: never expires. */
  readonly expires: number | null
  readonly claims: ReportedClaims
}

/** The subject of a token or a session. */
export interface TokenSubject {
  id: number
  username: string
  usertype: number
  email: string
}

/**
 * Issues an HS256 JWT for a user and stores its row (sha256 of the token, never the token):
 * `iss`, `sub`, `userid`, `username`, `jti` (the row's id), `iat`, `nbf = iat − 43200`, and `exp`
 * only with a positive `auth.token_ttl` (the row's `expires` is the same value).
 */
export async function issueAccessToken(rt: AuthRuntime, user: TokenSubject): Promise<IssuedToken> {
  const keys = rt.keys
  if (keys === undefined) throw new Error('issueAccessToken() without an application key')
  return issueSignedToken(rt, user, { algorithm: 'HS256', key: keys.jwt, ttl: rt.tokenTtl })
}

/**
 * Signs the claims of an access token for a user with an algorithm and key (HS256 under the
 * application key, or RS256 under the authorization server's private key) and stores its row.
 * `ttl` undefined: no `exp`, a row that never expires.
 */
export async function issueSignedToken(
  rt: AuthRuntime,
  user: TokenSubject,
  signer: { algorithm: 'HS256' | 'RS256'; key: Buffer | KeyObject; ttl: number | undefined },
): Promise<IssuedToken> {
  const iat = nowSeconds(rt)
  const exp = signer.ttl === undefined ? undefined : iat + signer.ttl
  const id = randomUUID()
  const claims = {
    iss: rt.issuer,
    sub: String(user.id),
    userid: user.id,
    username: user.username,
    jti: id,
    iat,
    nbf: iat - NBF_BACKDATE,
    ...(exp === undefined ? {} : { exp }),
  }
  const token = jwt().sign(claims, signer.key, { algorithm: signer.algorithm })
  await query(
    rt,
    'insert into "auth_tokens" ("id", "user_id", "kind", "token_hash", "expires", "revoked", "created_at") values (?, ?, ?, ?, ?, false, ?) returning "id"',
    [id, user.id, 'access', hashToken(token), exp ?? null, new Date(rt.now())],
  )
  return { token, id, expires: exp ?? null, claims }
}

/** Why a token was refused. */
export type TokenRefusal = 'unavailable' | 'invalid' | 'expired' | 'revoked' | 'unknown'

/** What verifying a token found. */
export type TokenCheck =
  | { ok: true; identity: Identity; claims: ReportedClaims; expires: number | null }
  | { ok: false; reason: TokenRefusal }

function reportedClaims(payload: Jwt.JwtPayload): ReportedClaims {
  const out: ReportedClaims = {}
  for (const k of ['sub', 'iss', 'aud', 'iat', 'exp', 'nbf', 'jti', 'userid', 'username'] as const)
    if (payload[k] !== undefined) (out as Record<string, unknown>)[k] = payload[k]
  return out
}

/** Claims longer than this (an unverified token can say anything) are cut, marked with `…`. */
const MAX_CLAIM_LENGTH = 200

function shortString(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  return value.length > MAX_CLAIM_LENGTH ? `${value.slice(0, MAX_CLAIM_LENGTH)}…` : value
}

function finiteNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined
}

/**
 * The identity claims of a token read **without verifying it**, for reporting why it was refused
 * (the debug payload): the payload segment only, never the header's key material or the
 * signature; the same claims as a verified token reports, each of its expected type (strings cut
 * at 200 characters, at most 10 audiences). Undefined when the token is no JWT.
 */
export function unverifiedClaims(token: string): ReportedClaims | undefined {
  if (token.length > 8192) return undefined
  const parts = token.split('.')
  if (parts.length !== 3) return undefined
  let payload: unknown
  try {
    payload = JSON.parse(Buffer.from(parts[1]!, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return undefined
  const p = payload as Record<string, unknown>
  const out: ReportedClaims = {}
  const set = <K extends keyof ReportedClaims>(k: K, v: ReportedClaims[K] | undefined) => {
    if (v !== undefined) out[k] = v
  }
  set('sub', shortString(p.sub))
  set('iss', shortString(p.iss))
  set(
    'aud',
    Array.isArray(p.aud)
      ? p.aud
          .slice(0, 10)
          .map(shortString)
          .filter((a): a is string => a !== undefined)
      : shortString(p.aud),
  )
  set('iat', finiteNumber(p.iat))
  set('exp', finiteNumber(p.exp))
  set('nbf', finiteNumber(p.nbf))
  set('jti', shortString(p.jti))
  set('userid', finiteNumber(p.userid))
  set('username', shortString(p.username))
  return out
}

/** The `alg` of a JWT's header, without checking anything else; undefined when unreadable. */
function headerAlg(token: string): unknown {
  const dot = token.indexOf('.')
  if (dot <= 0 || dot > 2048) return undefined
  try {
    const header: unknown = JSON.parse(
      Buffer.from(token.slice(0, dot), 'base64url').toString('utf8'),
    )
    return header !== null && typeof header === 'object'
      ? (header as { alg?: unknown }).alg
      : undefined
  } catch {
    return undefined
  }
}

/**
 * The one algorithm and key a token is verified with. The header only picks which of two fixed
 * (algorithm, key) pairs applies, and the verification pins that algorithm: an RS256 token is
 * checked with the authorization server's public key and `algorithms: ['RS256']` (and refused
 * while the feature is off or the key unreadable); anything else with the HS256 key derived from
 * the application key and `algorithms: ['HS256']`. So `alg: none` never verifies, and an HS256
 * token "signed" with the public key as its HMAC secret is checked against the derived key and
 * fails (algorithm confusion).
 */
function verifierOf(
  rt: AuthRuntime,
  token: string,
): { algorithm: 'HS256' | 'RS256'; key: Buffer | KeyObject } | { refused: TokenRefusal } {
  if (headerAlg(token) === 'RS256') {
    if (rt.signingKeys === undefined) return { refused: 'invalid' }
    try {
      return { algorithm: 'RS256', key: rt.signingKeys.publicKey() }
    } catch {
      return { refused: 'unavailable' }
    }
  }
  if (rt.keys === undefined) return { refused: 'unavailable' }
  return { algorithm: 'HS256', key: rt.keys.jwt }
}

/**
 * Checks the signature (HS256 under the application key, or RS256 under the authorization server's
 * public key: see {@link verifierOf}), `iss`, `nbf` and `exp`; answers the payload or a refusal.
 */
export function readSignedToken(
  rt: AuthRuntime,
  token: string,
  options: { ignoreExpiration?: boolean } = {},
): { ok: true; payload: Jwt.JwtPayload } | { ok: false; reason: TokenRefusal } {
  const verifier = verifierOf(rt, token)
  if ('refused' in verifier) return { ok: false, reason: verifier.refused }
  try {
    const payload = jwt().verify(token, verifier.key, {
      algorithms: [verifier.algorithm],
      issuer: rt.issuer,
      clockTimestamp: nowSeconds(rt),
      ignoreExpiration: options.ignoreExpiration === true,
    })
    if (typeof payload === 'string' || typeof payload.jti !== 'string' || !UUID.test(payload.jti))
      return { ok: false, reason: 'invalid' }
    if (typeof payload.sub !== 'string') return { ok: false, reason: 'invalid' }
    return { ok: true, payload }
  } catch (error) {
    return { ok: false, reason: error instanceof jwt().TokenExpiredError ? 'expired' : 'invalid' }
  }
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
}

/**
 * Verifies an access token: the signature and claims, then its stored row (one query by primary
 * key, joined to the user): there, of kind `access`, the same hash, not revoked, not past
 * `expires`. A verified token is cached for the runtime's cache time (see `token-cache.ts`).
 */
export async function verifyAccessToken(rt: AuthRuntime, token: string): Promise<TokenCheck> {
  const cached = rt.cache.get(token, rt.now())
  if (cached !== undefined)
    return {
      ok: true,
      identity: cached.identity,
      claims: cached.claims ?? {},
      expires: cached.expires,
    }
  const signed = readSignedToken(rt, token)
  if (!signed.ok) return signed
  const { payload } = signed
  // Read before the row: a revocation evicting meanwhile keeps this result out of the cache.
  const epoch = rt.cache.epoch()
  const readAt = rt.now()
  const rows = await read(
    rt,
    `select t."token_hash", t."kind", t."expires", t."revoked", u."id", u."username", u."usertype", u."email"
     from "auth_tokens" t join "users" u on u."id" = t."user_id" where t."id" = ?`,
    [payload.jti],
  )
  const row = rows[0]
  if (row === undefined) return { ok: false, reason: 'unknown' }
  if (row.kind !== 'access' || !sameHash(String(row.token_hash), hashToken(token)))
    return { ok: false, reason: 'invalid' }
  if (String(row.id) !== payload.sub) return { ok: false, reason: 'invalid' }
  const grant = grantOfRow(rt, row, 'accessToken', payload.jti!)
  if (!grant.ok) return grant
  const { identity, expires } = grant
  const claims = reportedClaims(payload)
  rt.cache.set(token, { identity, claims, expires, checkedAt: readAt }, epoch)
  return { ok: true, identity, claims, expires }
}

/**
 * Revokes the row of a token whose signature verifies (expired or not), then announces it to the
 * other instances (`revocations.ts`). Answers whether a row was revoked. A token that does not
 * verify revokes nothing: nobody revokes someone else's token by guessing a `jti`.
 */
export async function revokeAccessToken(rt: AuthRuntime, token: string): Promise<boolean> {
  rt.cache.delete(token)
  const signed = readSignedToken(rt, token, { ignoreExpiration: true })
  if (!signed.ok) return false
  const rows = await query(
    rt,
    'update "auth_tokens" set "revoked" = true where "id" = ? and "token_hash" = ? and "revoked" = false returning "id"',
    [signed.payload.jti, hashToken(token)],
  )
  if (rows.length !== 1) return false
  await announceRevocation(rt, String(rows[0]!.id))
  return true
}

/**
 * Revokes every unrevoked token of a user (bearer tokens, web sessions, refresh tokens) but the
 * one of id `keep`, then announces each to the other instances as {@link revokeAccessToken} does;
 * answers how many. What a password change calls (`test/examples/conduit-tokens.test.ts`).
 */
export async function revokeUserTokens(
  rt: AuthRuntime,
  userId: number,
  keep?: string,
): Promise<number> {
  const rows = await query(
    rt,
    'update "auth_tokens" set "revoked" = true where "user_id" = ? and "revoked" = false and "id" <> ? returning "id"',
    [userId, keep ?? ''],
  )
  await Promise.all(rows.map((row) => announceRevocation(rt, String(row.id))))
  return rows.length
}
