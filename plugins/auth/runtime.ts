import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { Identity, Kernel } from 'fw'
import type { DatabaseApi } from 'fw/plugins/database'
import type { DerivedKeys } from './app-key.js'
import type { SigningKeyStore } from './oauth-keys.js'
import type { TokenCache } from './token-cache.js'

/** What the auth plugin's modules share: set up once per kernel in `index.ts`. */
export interface AuthRuntime {
  readonly kernel: Kernel
  readonly db: DatabaseApi
  /** Keys derived from the application key; undefined without one (logins answer 500). */
  readonly keys: DerivedKeys | undefined
  /** The clock, in Unix milliseconds (injectable for tests). */
  readonly now: () => number
  /** The `iss` claim of issued tokens and the issuer a token must carry. */
  readonly issuer: string
  /** Access-token lifetime in seconds; undefined: never expire (`auth.token_ttl` unset, 0 or < 0). */
  readonly tokenTtl: number | undefined
  /** Web-session lifetime in seconds. */
  readonly sessionTtl: number
  /** Verified credentials, for a short while (see `token-cache.ts`). */
  readonly cache: TokenCache
  /**
   * The authorization server's RS256 key pair, set when the `authorization-server` feature is on
   * (`oauth-server.ts`): RS256 tokens verify against its public key; without it they are refused.
   */
  signingKeys?: SigningKeyStore
}

/** A row as raw SQL answers it. */
export type Row = Record<string, unknown>

/** Runs one statement with `?` placeholders and answers its rows (use `returning` for writes). */
export function query(
  rt: AuthRuntime,
  sql: string,
  params: unknown[],
  em?: EntityManager,
): Promise<Row[]> {
  return (em ?? rt.db.em()).execute<Row[]>(sql, params, 'all')
}

/**
 * Runs one read with `?` placeholders on the database plugin's fast read path (values bound, no
 * EntityManager forked: `runStatement` without one) and answers its rows. For the reads a request
 * makes to resolve its identity; statements that write go through {@link query}.
 */
export function read(rt: AuthRuntime, sql: string, params: unknown[]): Promise<Row[]> {
  return rt.db.runStatement({ sql, bindings: params })
}

/** Unix seconds of the runtime's clock. */
export function nowSeconds(rt: AuthRuntime): number {
  return Math.floor(rt.now() / 1000)
}

/** What a token row (joined with its user) grants: the identity, or why none. */
export type RowGrant =
  | { readonly ok: true; readonly identity: Identity; readonly expires: number | null }
  | { readonly ok: false; readonly reason: 'revoked' | 'expired' }

/**
 * The identity of a token row joined with its user (`expires`, `revoked`, `id`, `username`,
 * `usertype`, `email`), unless the token is revoked or expired. One mapping for web sessions and
 * access tokens.
 */
export function grantOfRow(
  rt: AuthRuntime,
  row: Row,
  via: 'session' | 'accessToken',
  tokenId: string,
): RowGrant {
  if (row.revoked === true) return { ok: false, reason: 'revoked' }
  const expires = row.expires === null ? null : Number(row.expires)
  if (expires !== null && expires <= nowSeconds(rt)) return { ok: false, reason: 'expired' }
  const identity: Identity = {
    id: Number(row.id),
    username: String(row.username),
    usertype: Number(row.usertype),
    email: String(row.email),
    via,
    tokenId,
    expires,
  }
  return { ok: true, identity, expires }
}
