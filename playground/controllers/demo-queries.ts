import type { RequestContext } from 'fw'

/** At most this many statements per request in development… */
const MAX_QUERIES = 200
/** …and in production, where the route is public and each statement holds the database. */
const MAX_QUERIES_PRODUCTION = 10

/**
 * `GET /_demo/queries?n=5`: runs `n` trivial statements one after another through the request's
 * EntityManager (so each is a `query.executed` event of this request) and answers `{queries: n}`.
 * `n` is clamped into 1…200 (1…10 in production: config `development: false`); a missing or
 * non-numeric `n` runs one.
 */
export async function queries(ctx: RequestContext): Promise<{ queries: number }> {
  const raw = Array.isArray(ctx.query.n) ? ctx.query.n[0] : ctx.query.n
  const asked = typeof raw === 'string' && /^\s*[+-]?\d{1,9}\s*$/.test(raw) ? Number(raw) : 1
  const max = ctx.kernel.config.development ? MAX_QUERIES : MAX_QUERIES_PRODUCTION
  const n = Math.min(max, Math.max(1, asked))
  const em = ctx.kernel.plugin('database').em()
  for (let i = 0; i < n; i++) await em.execute('select 1')
  return { queries: n }
}
