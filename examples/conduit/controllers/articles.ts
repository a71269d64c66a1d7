import { randomBytes } from 'node:crypto'
import { empty, json, type RequestContext } from 'fw'
import { articleOr404, listArticles, pageOf, type ArticleFilter } from '../articles.js'
import { query, queryOne, viewerId } from '../data.js'
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
  const slug = slugOf(article.title)
  await query(
    ctx,
    `insert into articles (slug, title, description, body, tag_list, author_id)
      values (?, ?, ?, ?, array(select jsonb_array_elements_text(?::jsonb)), ?)`,
    // The tags as one JSON text: a bound array would be spread into a list of parameters.
    [slug, article.title, article.description, article.body, JSON.stringify(tags), viewer],
  )
  return json({ article: await articleOr404(ctx, slug, viewer) }, 201)
}

/** The id of the article of `slug`, when the signed-in user wrote it: else 404 or 403. */
async function ownArticle(ctx: RequestContext, viewer: number): Promise<number> {
  const row = await queryOne(ctx, 'select id, author_id from articles where slug = ?', [
    ctx.params.slug,
  ])
  if (row === undefined) throw failure(404, 'article not found')
  if (row.author_id !== viewer) throw failure(403, 'only its author may change this article')
  return row.id as number
}

/** Changes an article's title, description or body (`PUT /api/articles/{slug}`); its author only. */
export async function update(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  const id = await ownArticle(ctx, viewer)
  const { article } = await ctx.body<{
    article: { title?: string; description?: string; body?: string }
  }>()
  const sets = ['updated_at = now()']
  const bindings: unknown[] = []
  for (const column of ['title', 'description', 'body'] as const) {
    if (article[column] === undefined) continue
    sets.push(`${column} = ?`)
    bindings.push(article[column])
  }
  let slug = ctx.params.slug!
  if (article.title !== undefined) {
    slug = slugOf(article.title)
    sets.push('slug = ?')
    bindings.push(slug)
  }
  await query(ctx, `update articles set ${sets.join(', ')} where id = ?`, [...bindings, id])
  return { article: await articleOr404(ctx, slug, viewer) }
}

/** Deletes an article and its comments and favorites (`DELETE /api/articles/{slug}`); its author only. */
export async function destroy(ctx: RequestContext) {
  const id = await ownArticle(ctx, await viewerId(ctx))
  await query(ctx, 'delete from articles where id = ?', [id])
  return empty()
}

/** Favorites an article (`POST /api/articles/{slug}/favorite`); twice is once. */
export async function favorite(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  await query(
    ctx,
    `insert into favorites (user_id, article_id) select ?, id from articles where slug = ?
      on conflict do nothing`,
    [viewer, ctx.params.slug],
  )
  return { article: await articleOr404(ctx, ctx.params.slug!, viewer) }
}

/** Unfavorites an article (`DELETE /api/articles/{slug}/favorite`). */
export async function unfavorite(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  await query(
    ctx,
    'delete from favorites where user_id = ? and article_id in (select id from articles where slug = ?)',
    [viewer, ctx.params.slug],
  )
  return { article: await articleOr404(ctx, ctx.params.slug!, viewer) }
}

/** Every tag in use (`GET /api/tags`), the most used first. */
export async function tags(ctx: RequestContext) {
  const rows = await query(
    ctx,
    `select tag from articles, unnest(tag_list) as tag group by tag order by count(*) desc, tag limit 100`,
  )
  return { tags: rows.map((r) => r.tag as string) }
}
