// Paths that plugins own at the site root (docs/routing.md "Claimed paths"). A plugin that mounts
// the site under a prefix (the admin area) leaves them out, so `/admin/health/check` is never the
// area's `/health/check`: it is routed as is (404). The kernel claims its own two.
import { routerErrors } from './router-error.js'

/**
 * A claimed path: `/login` (that path, with or without a trailing slash), `/account/*` (the path
 * and every path under it), `/health*` (every path that starts so: `/health`, `/healthz`,
 * `/health/check`).
 */
export type PathClaim = `/${string}`

/** A claim and the plugin that made it (`fw` for the kernel's own). */
export interface ClaimedPath {
  readonly owner: string
  readonly path: PathClaim
}

/** The kernel's own: `/_fw/*` (its assets and the dev server's), `/.well-known/*` (RFC 8615). */
const KERNEL_CLAIMS: readonly PathClaim[] = ['/_fw/*', '/.well-known/*']

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** The regular expression source of one claim. */
function sourceOf(claim: PathClaim): string {
  if (claim.endsWith('/*')) return `^${escape(claim.slice(0, -2))}(?:/|$)`
  if (claim.endsWith('*')) return `^${escape(claim.slice(0, -1))}`
  return `^${escape(claim.replace(/\/$/, ''))}/?$`
}

/** The claims of one router: who owns which paths at the site root. */
export class ClaimedPaths {
  readonly #claims: ClaimedPath[] = KERNEL_CLAIMS.map((path) => ({ owner: 'fw', path }))
  #test: RegExp | undefined

  /** Records `owner`'s claims; fails on one that does not start with `/` or has an inner `*`. */
  claim(owner: string, paths: readonly PathClaim[]): void {
    for (const path of paths) {
      if (!path.startsWith('/') || path.slice(0, -1).includes('*'))
        throw routerErrors.error('FW_ERR_ROUTER_INVALID_PATH', { claim: path, owner })
      this.#claims.push({ owner, path })
    }
    this.#test = undefined
  }

  /** Every claim, the kernel's first, then in the order they were made. */
  list(): readonly ClaimedPath[] {
    return this.#claims
  }

  /** True when `path` (a path, without its query) falls under a claim. */
  has(path: string): boolean {
    this.#test ??= new RegExp(this.#claims.map((c) => sourceOf(c.path)).join('|'))
    return this.#test.test(path)
  }
}
