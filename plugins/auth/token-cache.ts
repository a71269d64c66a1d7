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
 * hit skips the signature check and the database row read. Expiry is rechecked on every hit;
 * a revocation on this instance evicts at once; a revocation on another instance takes effect
 * here within `ttlMs`. `ttlMs` 0 turns the cache off (one indexed query per request).
 */
export class TokenCache {
  readonly #entries = new Map<string, CachedCredential>()
  readonly #ttlMs: number
  readonly #max: number

  constructor(ttlMs: number, max = 10_000) {
    this.#ttlMs = ttlMs
    this.#max = max
  }

  get(key: string, nowMs: number): CachedCredential | undefined {
    if (this.#ttlMs <= 0) return undefined
    const hit = this.#entries.get(key)
    if (hit === undefined) return undefined
    const fresh = nowMs - hit.checkedAt < this.#ttlMs && nowMs >= hit.checkedAt
    if (fresh && (hit.expires === null || hit.expires > Math.floor(nowMs / 1000))) return hit
    this.#entries.delete(key)
    return undefined
  }

  set(key: string, value: CachedCredential): void {
    if (this.#ttlMs <= 0) return
    if (this.#entries.size >= this.#max) {
      // Oldest first: a Map iterates in insertion order.
      const oldest = this.#entries.keys().next()
      if (!oldest.done) this.#entries.delete(oldest.value)
    }
    this.#entries.set(key, value)
  }

  delete(key: string): void {
    this.#entries.delete(key)
  }

  /** Forgets every credential of a token id (a revocation by id). */
  deleteTokenId(tokenId: string): void {
    for (const [key, value] of this.#entries) {
      if (value.identity.tokenId === tokenId) this.#entries.delete(key)
    }
  }
}
