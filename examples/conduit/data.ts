import type { RequestContext } from 'fw'
import type {} from 'fw/plugins/database'

/** A row as the database answers it. */
export type Row = Record<string, unknown>

/** Runs one statement with bound parameters on the request's connection (a `query.executed` event). */
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
