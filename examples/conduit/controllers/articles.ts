import { randomBytes } from 'node:crypto'
import { empty, json, type RequestContext } from 'fw'
import { articleOr404, listArticles, pageOf, type ArticleFilter } from '../articles.js'
import { entityManager, query, storedArticle, viewerId } from '../data.js'
import { Article, Favorite } from '../entities.js'
import { failure } from '../errors.js'

/** A query parameter given once as a string, else undefined. */
function param(ctx: RequestContext, name: string): string | undefined {
  const value = ctx.query[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** Recent articles (`GET /api/articles`), by `tag`, `author` or `favorited` (a username). */
export async function index(ctx: RequestContext) {
  const filter: ArticleFilter = {}
  for (const name of ['tag', 'author', 'favorited'] as const) {
    const value = param(ctx, name)
    if (value !== undefined) filter[name] = value
  }
  return listArticles(ctx, filter, pageOf(ctx), await viewerId(ctx))
}

/** Recent articles of the authors the signed-in user follows (`GET /api/articles/feed`). */
export async function feed(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  return listArticles(ctx, { followedBy: viewer }, pageOf(ctx), viewer)
}

/** One article (`GET /api/articles/{slug}`). */
export async function show(ctx: RequestContext) {
  return { article: await articleOr404(ctx, ctx.params.slug!, await viewerId(ctx)) }
}

/**
 * What a `{slug}` of the routes takes: any segment but `feed`, the feed's own path (so `PUT
 * /api/articles/feed` answers 405, not "no such article"), and none with a control character (no
 * slug has one: such a request is a 404 before any query).
 */
export const SLUG = /(?!feed$)[^\p{C}]+/u

/** `How to train your dragon` → `how-to-train-your-dragon-3f9a1c`: readable, and unique. */
function slugOf(title: string): string {
  const words = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200)
  return `${words === '' ? 'article' : words}-${randomBytes(3).toString('hex')}`
}

/** Writes an article (`POST /api/articles`); 201. */
export async function create(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  const { article } = await ctx.body<{
    article: { title: string; description: string; body: string; tagList?: string[] }
  }>()
  // Trimmed, without blanks or repeats, in alphabetical order (as RealWorld shows them).
  const tags = [
    ...new Set((article.tagList ?? []).map((t) => t.trim()).filter((t) => t !== '')),
  ].sort()
  const em = entityManager(ctx)
  const now = new Date()
  const created = em.create(Article, {
    slug: slugOf(article.title),
    title: article.title,
    description: article.description,
    body: article.body,
    tag_list: tags,
    author: viewer,
    created_at: now,
    updated_at: now,
  })
  await em.flush()
  return json({ article: await articleOr404(ctx, created.slug, viewer) }, 201)
}

/** The article of `{slug}`, when the signed-in user wrote it: else 404 or 403. */
async function ownArticle(ctx: RequestContext, viewer: number): Promise<Article> {
  const article = await storedArticle(ctx)
  // `author` is a reference: its id is known without loading the user.
  if (article.author.id !== viewer) throw failure(403, 'only its author may change this article')
  return article
}

/**
 * Changes an article's title, description or body (`PUT /api/articles/{slug}`); its author only.
 * A new title makes a new slug. The flush writes only the columns that changed (and `updated_at`
 * with them); a body that changes nothing writes nothing.
 */
export async function update(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  const article = await ownArticle(ctx, viewer)
  const { article: changes } = await ctx.body<{
    article: { title?: string; description?: string; body?: string }
  }>()
  if (changes.title !== undefined && changes.title !== article.title)
    article.slug = slugOf(changes.title)
  for (const field of ['title', 'description', 'body'] as const)
    if (changes[field] !== undefined) article[field] = changes[field]
  await entityManager(ctx).flush()
  return { article: await articleOr404(ctx, article.slug, viewer) }
}

/**
 * Deletes an article (`DELETE /api/articles/{slug}`); its author only. Its comments and favorites
 * go with it (`on delete cascade`).
 */
export async function destroy(ctx: RequestContext) {
  const em = entityManager(ctx)
  em.remove(await ownArticle(ctx, await viewerId(ctx)))
  await em.flush()
  return empty()
}

/**
 * Favorites an article (`POST /api/articles/{slug}/favorite`); twice is once: `upsert` of the
 * (user, article) pair is one `insert … on conflict do nothing`.
 */
export async function favorite(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  const article = await storedArticle(ctx)
  await entityManager(ctx).upsert(Favorite, { user: viewer, article })
  return { article: await articleOr404(ctx, article.slug, viewer) }
}

/** Unfavorites an article (`DELETE /api/articles/{slug}/favorite`): one `delete`, none to undo is fine. */
export async function unfavorite(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  const article = await storedArticle(ctx)
  await entityManager(ctx).nativeDelete(Favorite, { user: viewer, article })
  return { article: await articleOr404(ctx, article.slug, viewer) }
}

/** Every tag in use (`GET /api/tags`), the most used first. */
export async function tags(ctx: RequestContext) {
  const rows = await query(
    ctx,
    `select tag from articles, unnest(tag_list) as tag group by tag order by count(*) desc, tag limit 100`,
  )
  return { tags: rows.map((r) => r.tag as string) }
}
