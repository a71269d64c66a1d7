// The authorization server (feature `authorization-server`): `POST /api/oauth/token`, the OAuth2
// password grant (RFC 6749 §4.3) with refresh tokens (§6, rotated), RS256 access tokens.
import { createHash, randomBytes, randomUUID, timingSafeEqual, type KeyObject } from 'node:crypto'
import { HttpError, json, Reply, type Kernel, type RequestContext } from 'fw'
import { KeysGenerateCommand } from './keys-command.js'
import { field, passwordLeg } from './login-flow.js'
import { refuseWeakKeys, SigningKeyStore, signingKeyPaths } from './oauth-keys.js'
import { verifyDummyPassword, verifyPassword } from './passwords.js'
import { recordTokenIssued } from './resolved.js'
import { nowSeconds, query, type AuthRuntime } from './runtime.js'
import { issueSignedToken } from './tokens.js'
import { findUserById, type AuthUser } from './users.js'

/** Access-token lifetime of the authorization server when `auth.token_ttl` is unset, 0 or negative. */
export const OAUTH_DEFAULT_TTL = 3600
/** Refresh-token lifetime, seconds (30 days). */
export const REFRESH_TTL = 30 * 86_400

type OAuthErrorCode =
  'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unsupported_grant_type' | 'server_error'

function noStore(reply: Reply): Reply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache')
}

/** An error response of RFC 6749 §5.2: `{error, error_description}`, never cached. */
function oauthError(error: OAuthErrorCode, description: string): Reply {
  const status = error === 'invalid_client' ? 401 : error === 'server_error' ? 500 : 400
  const reply = noStore(json({ error, error_description: description }, status))
  return error === 'invalid_client'
    ? reply.header('www-authenticate', 'Basic realm="oauth", charset="UTF-8"')
    : reply
}

/** The client credentials of a request: HTTP Basic (RFC 6749 §2.3.1) or the body's fields. */
type ClientCredentials =
  | { ok: true; id: string; secret: string }
  | { ok: false; error: OAuthErrorCode; description: string }

function formDecode(value: string): string | undefined {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '))
  } catch {
    return undefined
  }
}

function clientCredentials(ctx: RequestContext, body: unknown): ClientCredentials {
  const inBody = field(body, 'client_id') !== '' || field(body, 'client_secret') !== ''
  const authorization = ctx.header('authorization')
  const basic =
    authorization === undefined ? null : /^basic[ \t]+([A-Za-z0-9+/=]+)[ \t]*$/i.exec(authorization)
  if (basic !== null) {
    if (inBody)
      return {
        ok: false,
        error: 'invalid_request',
        description: 'use one client authentication method',
      }
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    const id = colon < 0 ? undefined : formDecode(decoded.slice(0, colon))
    const secret = colon < 0 ? undefined : formDecode(decoded.slice(colon + 1))
    if (id === undefined || secret === undefined || id === '' || secret === '')
      return { ok: false, error: 'invalid_client', description: 'client authentication failed' }
    return { ok: true, id, secret }
  }
  const id = field(body, 'client_id')
  const secret = field(body, 'client_secret')
  if (id === '' || secret === '')
    return { ok: false, error: 'invalid_client', description: 'client authentication is required' }
  return { ok: true, id, secret }
}

function sha256(value: string): string {
  return createHash('sha256').update(value, 'utf8').digest('hex')
}

function sameHex(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b))
}

/**
 * The active application of a client id (its API key) and secret, or undefined. The key is looked
 * up by its sha256 (`applications.api_key_hash`) and compared again in constant time; the secret
 * is verified with scrypt, against a dummy hash for an unknown key (the same time either way).
 */
async function authenticateClient(
  rt: AuthRuntime,
  id: string,
  secret: string,
): Promise<{ id: number } | undefined> {
  const keyHash = sha256(id)
  const rows = await query(
    rt,
    'select "id", "api_key_hash", "secret_hash", "status" from "applications" where "api_key_hash" = ?',
    [keyHash],
  )
  const row = rows[0]
  if (row === undefined || !sameHex(String(row.api_key_hash), keyHash)) {
    await verifyDummyPassword(secret)
    return undefined
  }
  if (!(await verifyPassword(secret, String(row.secret_hash)))) return undefined
  if (row.status !== 'active') return undefined
  return { id: Number(row.id) }
}

/** The refresh-token row's hash: bound to the client, so another client cannot redeem it. */
function refreshHash(clientId: number, token: string): string {
  return sha256(`refresh:${clientId}:${token}`)
}

async function issueRefreshToken(
  rt: AuthRuntime,
  user: AuthUser,
  clientId: number,
): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  await query(
    rt,
    'insert into "auth_tokens" ("id", "user_id", "kind", "token_hash", "expires", "revoked", "created_at") values (?, ?, ?, ?, ?, false, ?) returning "id"',
    [
      randomUUID(),
      user.id,
      'refresh',
      refreshHash(clientId, token),
      nowSeconds(rt) + REFRESH_TTL,
      new Date(rt.now()),
    ],
  )
  return token
}

/**
 * Redeems a refresh token once: one conditional `update` revokes it (so two concurrent redemptions
 * cannot both succeed) and answers its user, if it was this client's, live and unexpired.
 */
async function redeemRefreshToken(
  rt: AuthRuntime,
  clientId: number,
  token: string,
): Promise<AuthUser | undefined> {
  if (token.length > 200) return undefined
  const rows = await query(
    rt,
    `update "auth_tokens" set "revoked" = true
     where "token_hash" = ? and "kind" = 'refresh' and "revoked" = false and "expires" > ?
     returning "user_id"`,
    [refreshHash(clientId, token), nowSeconds(rt)],
  )
  const row = rows[0]
  return row === undefined ? undefined : findUserById(rt, Number(row.user_id))
}

/** The password grant's user, or the OAuth error that refuses it (a lockout says when to retry). */
async function passwordGrant(
  rt: AuthRuntime,
  body: unknown,
): Promise<readonly [AuthUser, string] | Reply> {
  const username = field(body, 'username')
  const password = field(body, 'password')
  if (username.trim() === '' || password === '')
    return oauthError('invalid_request', 'username and password are required')
  const outcome = await passwordLeg(rt, username, password)
  switch (outcome.kind) {
    case 'missing':
      return oauthError('invalid_request', 'username and password are required')
    case 'locked':
      return oauthError(
        'invalid_grant',
        `too many failed attempts; try again in ${outcome.retryAfter} s`,
      ).header('retry-after', String(outcome.retryAfter))
    case 'invalid':
      return oauthError('invalid_grant', 'invalid username or password')
    case 'second-factor':
      return oauthError(
        'invalid_grant',
        'this user signs in with a second factor, which the password grant cannot carry',
      )
  }
  return [outcome.user, 'oauth.password']
}

/** The refresh grant's user (the token redeemed once), or the OAuth error that refuses it. */
async function refreshGrant(
  rt: AuthRuntime,
  clientId: number,
  refresh: string,
): Promise<readonly [AuthUser, string] | Reply> {
  if (refresh === '') return oauthError('invalid_request', 'refresh_token is required')
  const found = await redeemRefreshToken(rt, clientId, refresh)
  if (found === undefined || found.totp_secret !== null)
    return oauthError('invalid_grant', 'the refresh token is invalid, expired or used')
  return [found, 'oauth.refresh_token']
}

/** `POST /api/oauth/token`. */
async function token(rt: AuthRuntime, keys: SigningKeyStore, ctx: RequestContext): Promise<Reply> {
  let body: unknown
  try {
    body = await ctx.body()
  } catch (error) {
    if (error instanceof HttpError && error.status === 400)
      return oauthError('invalid_request', 'the request body is malformed')
    throw error
  }
  const grantType = field(body, 'grant_type')
  if (grantType === '') return oauthError('invalid_request', 'grant_type is required')
  if (grantType !== 'password' && grantType !== 'refresh_token')
    return oauthError('unsupported_grant_type', 'supported: password, refresh_token')

  const credentials = clientCredentials(ctx, body)
  if (!credentials.ok) return oauthError(credentials.error, credentials.description)
  let client: { id: number } | undefined
  try {
    client = await authenticateClient(rt, credentials.id, credentials.secret)
  } catch (error) {
    rt.kernel.logger.error('auth: the authorization server cannot read the applications table', {
      error,
    })
    return oauthError('server_error', 'the authorization server is unavailable')
  }
  if (client === undefined) return oauthError('invalid_client', 'client authentication failed')

  // The keys before the user's credentials: a broken server neither spends nor counts attempts.
  let privateKey: KeyObject
  try {
    privateKey = keys.privateKey()
  } catch (error) {
    rt.kernel.logger.error(`auth: cannot sign tokens: ${(error as Error).message}`)
    return oauthError('server_error', 'the authorization server is unavailable')
  }

  const granted =
    grantType === 'password'
      ? await passwordGrant(rt, body)
      : await refreshGrant(rt, client.id, field(body, 'refresh_token'))
  if (granted instanceof Reply) return granted
  const [user, action] = granted

  const ttl = rt.tokenTtl ?? OAUTH_DEFAULT_TTL
  const issued = await issueSignedToken(rt, user, { algorithm: 'RS256', key: privateKey, ttl })
  const refreshToken = await issueRefreshToken(rt, user, client.id)
  recordTokenIssued(ctx, user, issued, action)
  return noStore(
    json({
      token_type: 'Bearer',
      expires_in: ttl,
      access_token: issued.token,
      refresh_token: refreshToken,
    }),
  )
}

const OTHER_METHODS = ['GET', 'PUT', 'PATCH', 'DELETE'] as const

/**
 * Contributes `fw keys:generate` always, and with the `authorization-server` feature (any case)
 * the signing-key store (RS256 tokens verify only then), `POST /api/oauth/token` (named
 * `auth.oauth.token`; other methods 405) and a `listen` tap refusing a pair below 2048 bits
 * (`FW_ERR_AUTH_SIGNING_KEY_WEAK`). Without the feature the route does not exist.
 */
export function setupAuthorizationServer(kernel: Kernel, rt: AuthRuntime): void {
  kernel.command(KeysGenerateCommand)
  if (!kernel.hasFeature('authorization-server')) return
  const keys = new SigningKeyStore(signingKeyPaths(kernel), (message) =>
    kernel.logger.warn(`auth: ${message}`),
  )
  rt.signingKeys = keys
  // A pair below 2048 bits stops the start: the token endpoint could only answer 500 with it.
  kernel.hooks.listen.tapPromise('auth.signing-keys', async () => refuseWeakKeys(keys.paths))
  kernel.router.group({ prefix: 'api/oauth', name: 'auth.oauth.' }, (r) => {
    r.post('token', (ctx) => token(rt, keys, ctx)).name('token')
    r.match(OTHER_METHODS, 'token', () =>
      json({ error: 'method_not_allowed' }, 405).header('allow', 'POST'),
    )
  })
}
