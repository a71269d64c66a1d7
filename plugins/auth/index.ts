// The auth plugin: users and credentials, token login with an optional second factor, lockout,
// revocable HS256 tokens, web sessions with CSRF, and the `authenticate` taps.
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { definePlugin, type Identity, type Middleware } from 'fw'
import { declareAccountRoutes } from './account-routes.js'
import { appLockout, isLockout, type LockoutOptions } from './app-lockout.js'
import { scheduleCleanup } from './cleanup-job.js'
import { deriveKeys, signingAppKey } from './app-key.js'
import { tapAuthenticate, tapSessionPhase } from './authenticate.js'
import { authProjection } from './debug-projection.js'
import { authEntities } from './entities.js'
import './events.js'
import { setupAuthorizationServer } from './oauth-server.js'
import { followRevocations } from './revocations.js'
import type { AuthRuntime } from './runtime.js'
import { generateBackupCodes } from './second-factor.js'
import { csrfTokenOf } from './sessions.js'
import { signingKeysCheck, type SigningKeysOptions } from './signing-keys-check.js'
import { TokenCache } from './token-cache.js'
import {
  issueAccessToken,
  revokeAccessToken,
  revokeUserTokens,
  verifyAccessToken,
  type IssuedToken,
  type TokenCheck,
} from './tokens.js'
import {
  createUser,
  findUserById,
  findUserByUsername,
  sealPendingTotp,
  type AuthUser,
  type NewUser,
} from './users.js'
import { listUsers, setPassword, type ListedUser } from './user-admin.js'
import { userCommands } from './user-commands.js'
import { declareWebLogin } from './web-login.js'

/** Options of the auth plugin. */
export interface AuthOptions {
  /** The clock in Unix milliseconds (lockouts, TOTP steps, token times). Default `Date.now`. */
  now?: () => number
  /** The `iss` of issued tokens, required of presented ones. Default: config `app.name`. */
  issuer?: string
  /**
   * How long a verified token or session stays trusted without reading its row again, in ms
   * (default 1000); 0: one indexed query per authenticated request. On PostgreSQL a served app
   * hears other instances' revocations at once (`LISTEN`); without that (PGlite, or while the
   * listening connection is down) a revocation elsewhere takes effect within this time.
   */
  tokenCacheMs?: number
  /** Web-session lifetime in seconds (default 43200, 12 h). */
  sessionTtl?: number
  /** Web sign-in pages (`GET`/`POST /login`, `POST /logout`). Default: on when `views` is registered. */
  webLogin?: boolean
  /** The template of the sign-in page (default `login`). */
  loginView?: string
  /**
   * Named middleware run before the sign-in form's `POST /login` (a rate limit, say:
   * `['limit:login']`), after the app's own groups would; default none.
   */
  loginMiddleware?: readonly string[]
  /**
   * Fills the auth tables of an empty database (demo users, say); run by the database plugin after
   * the migrations, under its lock. Answers whether it wrote anything.
   */
  seed?: (auth: AuthApi, em: EntityManager) => Promise<boolean>
  /**
   * The `signing_keys` health check's settings; registered with the health plugin when it is there
   * and the `authorization-server` feature is on.
   */
  signingKeysCheck?: SigningKeysOptions
}

/** What `kernel.plugin('auth')` returns. */
export interface AuthApi {
  /**
   * True when tokens can be signed and TOTP secrets sealed: an application key is set, or the
   * development key applies (development mode outside production).
   */
  readonly hasAppKey: boolean
  /**
   * Creates a user (password hashed with scrypt, TOTP secret sealed under the application key).
   *
   * @example
   * await kernel.plugin('auth').createUser({ username: 'ann', password: 's3cret', email: 'ann@example.test' })
   */
  createUser(
    input: NewUser,
    em?: EntityManager,
  ): Promise<Pick<AuthUser, 'id' | 'username' | 'email' | 'usertype'>>
  /** A user by username, case-insensitively. */
  findUser(username: string, em?: EntityManager): Promise<AuthUser | undefined>
  /**
   * Seals the TOTP secret of a user created before there was an application key (no-op when it is
   * already sealed or there is still no key). Returns whether it wrote.
   */
  sealPendingTotp(username: string, secret: string, em?: EntityManager): Promise<boolean>
  /** Replaces a user's backup codes with 10 new ones, answered in clear (only hashes are stored). */
  generateBackupCodes(userId: number): Promise<string[]>
  /**
   * Replaces a user's password (not empty) and revokes every token and web session the user
   * holds; answers how many were revoked, or undefined for an unknown username.
   */
  setPassword(username: string, password: string): Promise<{ revoked: number } | undefined>
  /** Every user by id, without password hashes or TOTP secrets. */
  listUsers(): Promise<ListedUser[]>
  /** Issues an access token for a user, as a login would; fails without an application key. */
  issueToken(userId: number): Promise<IssuedToken>
  /** Verifies an access token (signature, claims, stored row). */
  verifyToken(token: string): Promise<TokenCheck>
  /** Revokes an access token whose signature verifies. */
  revokeToken(token: string): Promise<boolean>
  /**
   * Revokes every token of a user (bearer tokens, web sessions, refresh tokens) but the one of id
   * `keep` (a request's own, `identity.tokenId`), at once on every instance; answers how many.
   * What a password change calls.
   */
  revokeUserTokens(userId: number, keep?: string): Promise<number>
  /** The CSRF token of a web-session identity (what `X-CSRF-Token` must carry), else undefined. */
  csrfToken(identity: Identity | undefined): string | undefined
  /**
   * Where a guest signs in and comes back to `returnTo` (a local path), e.g.
   * `/login?return=/health`; undefined when web sign-in is off (no views plugin, `webLogin: false`).
   */
  signInUrl(returnTo: string): string | undefined
  /**
   * The sign-in lockout as middleware for an app's own login route: failures are counted against
   * `key(ctx)` (an email, a username), a locked key answers 429 with `Retry-After`, and the API
   * document lists that 429 on every route that uses it.
   *
   * @example
   * kernel.middleware('login.lockout', auth.lockout({ key: async (ctx) => (await ctx.body<{ email?: string }>()).email }))
   */
  lockout(options: LockoutOptions): Middleware
  /** True for a middleware `lockout()` made (what the API document derives its 429 from). */
  isLockout(fn: Middleware | undefined): boolean
}

declare module 'fw' {
  interface PluginApis {
    auth: AuthApi
  }
  interface FwConfig {
    auth: {
      /** Access-token lifetime in seconds; unset or 0: tokens do not expire by time. */
      token_ttl: number | undefined
      /**
       * The scheme of `Authorization: <scheme> <token>` that carries an access token (`Bearer`;
       * RealWorld clients send `Token`), matched case-insensitively; an RFC 7235 token.
       */
      token_scheme: string
    }
    oauth: {
      /** The authorization server's private key file (PEM), relative to the app root. */
      private_key: string
      /** Its public key file (PEM), relative to the app root. */
      public_key: string
    }
  }
}

/**
 * Token login for fw: `POST /account/login`, `/account/login2fa`, `/account/logout`, web sign-in
 * at `/login`, and `authenticate` taps for bearer tokens and web sessions.
 *
 * @example
 * kernel.register(database, { entities, migrations }).register(auth, { seed: seedUsers })
 */
export default definePlugin<AuthOptions | undefined, AuthApi>({
  name: 'auth',
  dependsOn: ['database'],
  // views: the web sign-in pages; health: the `signing_keys` check and where its pages send a
  // guest; debug: the `_debug` payload's `auth` key; jobs: the daily cleanup.
  optionalDependsOn: ['views', 'health', 'debug', 'jobs'],
  config: {
    defaults: {
      auth: { token_ttl: undefined, token_scheme: 'Bearer' },
      oauth: { private_key: 'var/keys/private.key', public_key: 'var/keys/public.key' },
    },
    schema: {
      'auth.token_ttl': 'integer?',
      'auth.token_scheme': {
        kind: 'string',
        check: (v) =>
          /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(v)
            ? undefined
            : 'use an HTTP authentication scheme name such as Bearer or Token',
      },
      'oauth.private_key': 'string',
      'oauth.public_key': 'string',
    },
  },
  setup(kernel, options = {}) {
    const db = kernel.plugin('database')
    db.addEntities(...authEntities)
    // Imported when the database opens: processes that never query skip loading the migration.
    db.addMigrations(() => import('./migration.js').then((m) => m.authMigrations))
    const ttl = kernel.config.auth.token_ttl
    const rt: AuthRuntime = {
      kernel,
      db,
      keys: deriveKeys(signingAppKey(kernel.config.app, kernel.isDevelopment())),
      now: options.now ?? Date.now,
      issuer: options.issuer ?? kernel.config.app.name,
      tokenTtl: ttl !== undefined && ttl > 0 ? ttl : undefined,
      sessionTtl: options.sessionTtl ?? 43_200,
      cache: new TokenCache(options.tokenCacheMs ?? 1000),
    }
    const webLogin = options.webLogin ?? kernel.hasPlugin('views')
    const api: AuthApi = {
      hasAppKey: rt.keys !== undefined,
      createUser: (input, em) => createUser(rt, input, em),
      findUser: (username, em) => findUserByUsername(rt, username, em),
      sealPendingTotp: (username, secret, em) => sealPendingTotp(rt, username, secret, em),
      generateBackupCodes: (userId) => generateBackupCodes(rt, userId),
      setPassword: (username, password) => setPassword(rt, username, password),
      listUsers: () => listUsers(rt),
      async issueToken(userId) {
        const user = await findUserById(rt, userId)
        if (user === undefined) throw new Error(`issueToken(): no user ${userId}`)
        return issueAccessToken(rt, user)
      },
      verifyToken: (token) => verifyAccessToken(rt, token),
      revokeToken: (token) => revokeAccessToken(rt, token),
      revokeUserTokens: (userId, keep) => revokeUserTokens(rt, userId, keep),
      csrfToken: (identity) =>
        identity?.via === 'session' && identity.tokenId !== undefined
          ? csrfTokenOf(rt, identity.tokenId)
          : undefined,
      signInUrl: (returnTo) =>
        webLogin
          ? `/login?return=${encodeURI(returnTo).replace(/[?&#+]/g, encodeURIComponent)}`
          : undefined,
      lockout: (lockoutOptions) => appLockout(rt, lockoutOptions),
      isLockout,
    }
    const seed = options.seed
    if (seed !== undefined) db.addSeed((em) => seed(api, em))
    tapAuthenticate(kernel, rt)
    tapSessionPhase(kernel)
    kernel.hooks.listen.tapPromise('auth', async () => followRevocations(rt))
    // Sign-in at the site root only: an admin area never takes it (README.md "Claimed paths").
    kernel.router.claim('auth', '/account/*', '/login')
    declareAccountRoutes(kernel, rt)
    for (const command of userCommands) kernel.command(command)
    setupAuthorizationServer(kernel, rt)
    if (webLogin)
      declareWebLogin(kernel, rt, {
        view: options.loginView ?? 'login',
        middleware: options.loginMiddleware ?? [],
      })
    if (kernel.hasPlugin('health')) {
      const health = kernel.plugin('health')
      health.signInWith(api.signInUrl)
      if (kernel.hasFeature('authorization-server'))
        health.register(signingKeysCheck(kernel, options.signingKeysCheck))
    }
    if (kernel.hasPlugin('debug')) kernel.plugin('debug').project('auth', authProjection)
    // jobs: a daily job deletes expired tokens, sessions, pending logins and spent lockouts.
    if (kernel.hasPlugin('jobs')) scheduleCleanup(kernel.plugin('jobs'), rt)
    return api
  },
})

export { hashPassword, verifyPassword } from './passwords.js'
export { generateTotpSecret, MIN_TOTP_SECRET_BITS, TOTP_SECRET_BITS } from './second-factor.js'
export { safeReturnPath } from './return-path.js'
export { presentedToken } from './presented-token.js'
export { signingKeysCheck, type SigningKeysOptions } from './signing-keys-check.js'
export {
  User,
  UserSchema,
  AuthToken,
  AuthTokenSchema,
  BackupCode,
  Lockout,
  PendingLogin,
} from './entities.js'
export type { TokenKind } from './entities.js'
export type { NewUser, AuthUser } from './users.js'
export type { ListedUser } from './user-admin.js'
export type { IssuedToken, TokenCheck, TokenRefusal } from './tokens.js'
export type { AuthCredential, AuthSource, ReportedClaims } from './events.js'
export { LOCK_STEPS } from './lockout.js'
export type { LockoutOptions } from './app-lockout.js'
export { authErrors } from './errors.js'
