import type { RequestContext } from 'fw'
import { isoDate, query, queryOne, type Profile, type Row } from './data.js'
import { selectArticles } from './article-sql.js'
import { failure } from './errors.js'

/** An article as RealWorld shows it; the lists leave out `body`. */
export interface ArticleView {
  slug: string
  title: string
  description: string
  body?: string
  tagList: string[]
  createdAt: string
  updatedAt: string
  favorited: boolean
  favoritesCount: number
  author: Profile
}

const LIST_SQL = selectArticles(false)
const ONE_SQL = `${selectArticles(true)} where a.slug = ?`

export function articleOf(row: Row): ArticleView {
  return {
    slug: row.slug as string,
    title: row.title as string,
    description: row.description as string,
    ...(row.body === undefined ? {} : { body: row.body as string }),
    tagList: row.tag_list as string[],
    createdAt: isoDate(row.created_at),
    updatedAt: isoDate(row.updated_at),
    favorited: row.favorited === true,
    favoritesCount: row.favorites_count as number,
    author: {
      username: row.username as string,
      bio: (row.bio as string | null) ?? null,
      image: (row.image as string | null) ?? null,
      following: row.following === true,
    },
  }
}

/** The article of `slug` as `viewer` sees it, or undefined. */
export async function findArticle(
  ctx: RequestContext,
  slug: string,
  viewer: number,
): Promise<ArticleView | undefined> {
  const row = await queryOne(ctx, ONE_SQL, [viewer, viewer, slug])
  return row === undefined ? undefined : articleOf(row)
}

/** The article of `slug`, or a 404 in RealWorld's shape. */
export async function articleOr404(
  ctx: RequestContext,
  slug: string,
  viewer: number,
): Promise<ArticleView> {
  const article = await findArticle(ctx, slug, viewer)
  if (article === undefined) throw failure(404, 'article not found')
  return article
}

/** What narrows a list: RealWorld's query parameters, and the feed's follower. */
export interface ArticleFilter {
  tag?: string
  author?: string
  favorited?: string
  /** The feed: articles of the authors this user follows. */
  followedBy?: number
}

/** A page of a list: `limit` (1–100, default 20) from `offset` (default 0). */
export interface Page {
  limit: number
  offset: number
}

/** `limit` and `offset` from the query string, or a 422 naming the bad one. */
export function pageOf(ctx: RequestContext): Page {
  const read = (name: string, fallback: number, min: number, max: number): number => {
    const raw = ctx.query[name]
    if (raw === undefined || raw === '') return fallback
    const value = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN
    if (!(value >= min && value <= max))
      throw failure(422, `${name} must be an integer from ${min} to ${max}`)
    return value
  }
  return { limit: read('limit', 20, 1, 100), offset: read('offset', 0, 0, 1e9) }
}

/**
 * A page of articles newest first and the count of all that match: two statements whatever the
 * page size.
 */
export async function listArticles(
  ctx: RequestContext,
  filter: ArticleFilter,
  page: Page,
  viewer: number,
): Promise<{ articles: ArticleView[]; articlesCount: number }> {
  const where: string[] = []
  const bindings: unknown[] = []
  if (filter.tag !== undefined) {
    where.push('a.tag_list @> array[?]::text[]')
    bindings.push(filter.tag)
  }
  if (filter.author !== undefined) {
    where.push('a.author_id in (select id from users where lower(username) = lower(?))')
    bindings.push(filter.author)
  }
  if (filter.favorited !== undefined) {
    where.push(`a.id in (select v.article_id from favorites v
      where v.user_id in (select id from users where lower(username) = lower(?)))`)
    bindings.push(filter.favorited)
  }
  if (filter.followedBy !== undefined) {
    where.push('a.author_id in (select followed_id from follows where follower_id = ?)')
    bindings.push(filter.followedBy)
  }
  const clause = where.length === 0 ? '' : ` where ${where.join(' and ')}`
  const rows = await query(
    ctx,
    `${LIST_SQL}${clause} order by a.created_at desc, a.id desc limit ? offset ?`,
    [viewer, viewer, ...bindings, page.limit, page.offset],
  )
  const counted = await queryOne(
    ctx,
    `select count(*)::int as n from articles a${clause}`,
    bindings,
  )
  return { articles: rows.map(articleOf), articlesCount: counted?.n as number }
}
