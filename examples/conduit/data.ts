import type { RequestContext } from 'fw'
import { Article } from './entities.js'
import { failure } from './errors.js'

/** A row as the database answers it. */
export type Row = Record<string, unknown>

/**
 * Runs one statement with bound parameters (a `query.executed` event). The reads are such
 * statements: each shows what a response needs in one round trip, joins and counts included.
 */
export function query(ctx: RequestContext, sql: string, bindings: unknown[] = []): Promise<Row[]> {
  return ctx.kernel.plugin('database').runStatement({ sql, bindings })
}

/** The first row, or undefined. */
export async function queryOne(
  ctx: RequestContext,
  sql: string,
  bindings: unknown[] = [],
): Promise<Row | undefined> {
  return (await query(ctx, sql, bindings))[0]
}

/**
 * The request's EntityManager (forked on its first use in the request): the writes go through it,
 * each `flush()` one transaction. Its statements are `query.executed` events too.
 */
export function entityManager(ctx: RequestContext) {
  return ctx.kernel.plugin('database').em()
}

/** The article of the route's `{slug}` as an entity of the request's EntityManager, or a 404. */
export async function storedArticle(ctx: RequestContext): Promise<Article> {
  const article = await entityManager(ctx).findOne(Article, { slug: ctx.params.slug! })
  if (article === null) throw failure(404, 'article not found')
  return article
}

/** The signed-in user's id, or 0 (no user has it) for a guest: the viewer of `following`/`favorited`. */
export async function viewerId(ctx: RequestContext): Promise<number> {
  const identity = await ctx.identity()
  return identity === undefined ? 0 : Number(identity.id)
}

/** A profile as RealWorld shows it. */
export interface Profile {
  username: string
  bio: string | null
  image: string | null
  following: boolean
}

/** The columns of a profile: `username`, `bio`, `image`, `following` (of the viewer, bound first). */
export const PROFILE_COLUMNS = `u.username, p.bio, p.image,
  exists (select 1 from follows f where f.follower_id = ? and f.followed_id = u.id) as following`

export function profileOf(row: Row): Profile {
  return {
    username: row.username as string,
    bio: (row.bio as string | null) ?? null,
    image: (row.image as string | null) ?? null,
    following: row.following === true,
  }
}

/** `created_at`/`updated_at` as ISO 8601 with milliseconds (the driver answers a Date). */
export function isoDate(value: unknown): string {
  return (value instanceof Date ? value : new Date(value as string)).toISOString()
}
