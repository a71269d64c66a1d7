import { empty, type RequestContext } from 'fw'
import {
  entityManager,
  isoDate,
  PROFILE_COLUMNS,
  profileOf,
  query,
  queryOne,
  storedArticle,
  viewerId,
  type Row,
} from '../data.js'
import { Comment } from '../entities.js'
import { failure } from '../errors.js'

const SELECT_COMMENTS = `select c.id, c.body, c.created_at, c.updated_at, ${PROFILE_COLUMNS}
  from comments c join users u on u.id = c.author_id left join user_profiles p on p.user_id = u.id`

function commentOf(row: Row) {
  return {
    id: row.id as number,
    createdAt: isoDate(row.created_at),
    updatedAt: isoDate(row.updated_at),
    body: row.body as string,
    author: profileOf(row),
  }
}

/** The id of the article of `slug`, or a 404. */
async function articleId(ctx: RequestContext): Promise<number> {
  const row = await queryOne(ctx, 'select id from articles where slug = ?', [ctx.params.slug])
  if (row === undefined) throw failure(404, 'article not found')
  return row.id as number
}

/** An article's comments, oldest first (`GET /api/articles/{slug}/comments`): one statement. */
export async function index(ctx: RequestContext) {
  const id = await articleId(ctx)
  const rows = await query(ctx, `${SELECT_COMMENTS} where c.article_id = ? order by c.id`, [
    await viewerId(ctx),
    id,
  ])
  return { comments: rows.map(commentOf) }
}

/**
 * Comments on an article (`POST /api/articles/{slug}/comments`): the comment through the
 * EntityManager, then read back with its author's profile as the list shows it.
 */
export async function create(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  const article = await storedArticle(ctx)
  const { comment } = await ctx.body<{ comment: { body: string } }>()
  const em = entityManager(ctx)
  const now = new Date()
  const created = em.create(Comment, {
    article,
    author: viewer,
    body: comment.body,
    created_at: now,
    updated_at: now,
  })
  await em.flush()
  const row = await queryOne(ctx, `${SELECT_COMMENTS} where c.id = ?`, [viewer, created.id])
  return { comment: commentOf(row!) }
}

/** Deletes a comment (`DELETE /api/articles/{slug}/comments/{id}`): its author only, else 403. */
export async function destroy(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  // The route admits digits only; beyond a PostgreSQL integer no comment has that id.
  const id = Number(ctx.params.id)
  if (id > 2 ** 31 - 1) throw failure(404, 'comment not found')
  const em = entityManager(ctx)
  // One statement: the comment of that id on the article of that slug.
  const comment = await em.findOne(Comment, { id, article: { slug: ctx.params.slug! } })
  if (comment === null) throw failure(404, 'comment not found')
  if (comment.author.id !== viewer) throw failure(403, 'only its author may delete this comment')
  em.remove(comment)
  await em.flush()
  return empty()
}
