// The baseline of bench/conduit.ts: bare polka 1.0.0-next.28 and a `pg.Pool` (10 connections)
// answering the Conduit example's `GET /api/articles?limit=&offset=` and `GET /api/articles/:slug`
// for a signed-in user, by hand: the same SQL (the example's statements, `$n` for its `?`), the
// same JSON, and the same sign-in work: the HS256 JWT verified with the key the auth plugin derives
// from the application key and its stored row read, both at most once a second per token (the
// auth plugin's 1 s cache). DATABASE_URL and FW_APP_KEY as for the example.
import { createHash, hkdfSync } from 'node:crypto'
import jwt from 'jsonwebtoken'
import pg from 'pg'
import { selectArticles } from '../../examples/conduit/article-sql.js'
import { jsonApp, send, serve } from './baseline-polka.js'

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 })
const key = Buffer.from(
  hkdfSync(
    'sha256',
    Buffer.from(process.env.FW_APP_KEY ?? '', 'utf8'),
    Buffer.from('fw.auth.v1'),
    'jwt-hs256',
    32,
  ),
)

/** Numbers the `?` placeholders `$1`, `$2`, … */
function numbered(sql: string): string {
  let n = 0
  return sql.replace(/\?/g, () => `$${++n}`)
}

const LIST = numbered(
  `${selectArticles(false)} order by a.created_at desc, a.id desc limit ? offset ?`,
)
const COUNT = 'select count(*)::int as n from articles a'
const ONE = numbered(`${selectArticles(true)} where a.slug = ?`)

interface Row {
  slug: string
  title: string
  description: string
  body?: string
  tag_list: string[]
  created_at: Date
  updated_at: Date
  username: string
  bio: string | null
  image: string | null
  following: boolean
  favorited: boolean
  favorites_count: number
}

function article(row: Row) {
  return {
    slug: row.slug,
    title: row.title,
    description: row.description,
    ...(row.body === undefined ? {} : { body: row.body }),
    tagList: row.tag_list,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    favorited: row.favorited,
    favoritesCount: row.favorites_count,
    author: { username: row.username, bio: row.bio, image: row.image, following: row.following },
  }
}

/** A token's user id: its signature and stored row checked at most once a second. */
const checked = new Map<string, { user: number; until: number }>()

async function viewer(header: string | undefined): Promise<number | undefined> {
  const m = /^token[ \t]+(\S+)$/i.exec(header ?? '')
  if (!m) return undefined
  const token = m[1]!
  // As the auth plugin: a token verified less than a second ago is trusted without a second look.
  const hit = checked.get(token)
  if (hit !== undefined && hit.until > Date.now()) return hit.user
  let claims: { userid: number; jti: string }
  try {
    claims = jwt.verify(token, key, { algorithms: ['HS256'] }) as typeof claims
  } catch {
    return undefined
  }
  const { rows } = await pool.query<{ user_id: number }>(
    'select user_id from auth_tokens where id = $1 and token_hash = $2 and not revoked',
    [claims.jti, createHash('sha256').update(token).digest('hex')],
  )
  if (rows[0] === undefined) return undefined
  checked.set(token, { user: rows[0].user_id, until: Date.now() + 1000 })
  return rows[0].user_id
}

const app = jsonApp()
app.get('/api/articles', async (req, res) => {
  const user = (await viewer(req.headers.authorization)) ?? 0
  const limit = Number(req.query.limit ?? 20)
  const offset = Number(req.query.offset ?? 0)
  const { rows } = await pool.query<Row>(LIST, [user, user, limit, offset])
  const counted = await pool.query<{ n: number }>(COUNT)
  send(res, 200, { articles: rows.map(article), articlesCount: counted.rows[0]!.n })
})
app.get('/api/articles/:slug', async (req, res) => {
  const user = (await viewer(req.headers.authorization)) ?? 0
  const { rows } = await pool.query<Row>(ONE, [user, user, req.params.slug])
  if (rows[0] === undefined) return send(res, 404, { errors: { body: ['article not found'] } })
  send(res, 200, { article: article(rows[0]) })
})
serve(app, pool)
