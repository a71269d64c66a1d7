// The Conduit example's article lists: paging by limit/offset, the tag/author/favorited filters,
// the feed of followed authors, and the cost of a page: a fixed number of statements whatever its
// size (no query per article for its author, following, favorited or favoritesCount).
import * as assert from 'uvu/assert'
import type { InjectResponse } from 'fw'
import { eventsOf } from 'fw/testing'
import { call, conduitSuite, errorsOf, register, type ConduitSuite } from './conduit-fixtures.js'

interface ListBody {
  articles: {
    slug: string
    title: string
    body?: string
    tagList: string[]
    favorited: boolean
    favoritesCount: number
    author: { username: string; following: boolean }
  }[]
  articlesCount: number
}

const test = conduitSuite<{ cy: string }>('conduit example: lists')

/** Ann writes 25 articles (`a01` … `a25`, a minute apart, newest last; odd ones tagged `odd`), bob 2. */
test.before(async (context) => {
  const { app } = context
  context.cy = await register(app.kernel, 'cy')
  const db = app.kernel.plugin('database')
  await db.runStatement({
    sql: `insert into articles (slug, title, description, body, tag_list, author_id, created_at, updated_at)
      select 'a' || lpad(n::text, 2, '0'), 'A ' || n, 'd', 'b',
        case when n % 2 = 1 then array['odd', 'all'] else array['all'] end,
        (select id from users where username = ?),
        timestamptz '2026-01-01' + n * interval '1 minute', timestamptz '2026-01-01' + n * interval '1 minute'
      from generate_series(1, 25) n`,
    bindings: ['ann'],
  })
  await db.runStatement({
    sql: `insert into articles (slug, title, description, body, author_id, created_at)
      select 'b' || n, 'B ' || n, 'd', 'b', (select id from users where username = ?), timestamptz '2025-01-01' + n * interval '1 minute'
      from generate_series(1, 2) n`,
    bindings: ['bob'],
  })
  // cy follows ann; bob and cy favorite a25, bob a24.
  await call(app.kernel, 'POST', '/profiles/ann/follow', { token: context.cy })
  for (const [token, slug] of [
    [context.bob, 'a25'],
    [context.cy, 'a25'],
    [context.bob, 'a24'],
  ] as const)
    assert.is((await call(app.kernel, 'POST', `/articles/${slug}/favorite`, { token })).status, 200)
})

const list = async (ctx: ConduitSuite, path: string, token?: string) => {
  const res = await call(ctx.app.kernel, 'GET', path, { token })
  assert.is(res.status, 200, `${path}: ${res.body}`)
  return res.json<ListBody>()
}
const slugs = (body: ListBody) => body.articles.map((a) => a.slug)

test('GET /articles: newest first, 20 by default, without bodies, counted', async (ctx) => {
  const body = await list(ctx, '/articles')
  assert.is(body.articlesCount, 27)
  assert.is(body.articles.length, 20)
  assert.equal(slugs(body).slice(0, 3), ['a25', 'a24', 'a23'])
  assert.ok(body.articles.every((a) => !('body' in a)))
})

test('limit and offset page the list; a bad one is a 422', async (ctx) => {
  assert.equal(slugs(await list(ctx, '/articles?limit=3&offset=2')), ['a23', 'a22', 'a21'])
  const last = await list(ctx, '/articles?limit=10&offset=20')
  assert.equal([last.articles.length, last.articlesCount], [7, 27])
  assert.equal(slugs(last).slice(-2), ['b2', 'b1'])
  assert.equal(await list(ctx, '/articles?offset=100'), { articles: [], articlesCount: 27 })
  for (const query of ['limit=0', 'limit=101', 'limit=x', 'offset=-1', 'limit=1.5']) {
    const res = await call(ctx.app.kernel, 'GET', `/articles?${query}`)
    assert.is(res.status, 422, query)
    assert.is(errorsOf(res).length, 1)
  }
})

test('filters: tag, author, favorited (a username), together, and unknown names', async (ctx) => {
  const odd = await list(ctx, '/articles?tag=odd&limit=100')
  assert.is(odd.articlesCount, 13)
  assert.ok(odd.articles.every((a) => a.tagList.includes('odd')))
  assert.equal(odd.articles[0]!.tagList, ['odd', 'all'])
  assert.equal(slugs(await list(ctx, '/articles?author=bob')), ['b2', 'b1'])
  assert.equal(slugs(await list(ctx, '/articles?author=BOB')), ['b2', 'b1'])
  assert.equal(slugs(await list(ctx, '/articles?favorited=bob')), ['a25', 'a24'])
  assert.equal(slugs(await list(ctx, '/articles?favorited=bob&tag=odd')), ['a25'])
  assert.equal(slugs(await list(ctx, '/articles?favorited=cy&author=ann')), ['a25'])
  for (const query of ['author=nobody', 'favorited=nobody', 'tag=none', 'author=bob&tag=odd'])
    assert.equal(await list(ctx, `/articles?${query}`), { articles: [], articlesCount: 0 }, query)
})

test('the viewer: favorited and following are per signed-in user, false for a guest', async (ctx) => {
  const top = async (token?: string) => (await list(ctx, '/articles?limit=2', token)).articles
  const guest = await top()
  assert.equal(
    guest.map((a) => [a.favorited, a.favoritesCount, a.author.following]),
    [
      [false, 2, false],
      [false, 1, false],
    ],
  )
  const bob = await top(ctx.bob)
  assert.equal(
    bob.map((a) => [a.favorited, a.author.following]),
    [
      [true, false],
      [true, false],
    ],
  )
  const cy = await top(ctx.cy)
  assert.equal(
    cy.map((a) => [a.favorited, a.author.following]),
    [
      [true, true],
      [false, true],
    ],
  )
})

test('GET /articles/feed: the followed authors newest first, paged; 401 for a guest', async (ctx) => {
  const feed = await list(ctx, '/articles/feed?limit=5&offset=1', ctx.cy)
  assert.equal(slugs(feed), ['a24', 'a23', 'a22', 'a21', 'a20'])
  assert.is(feed.articlesCount, 25)
  assert.ok(feed.articles.every((a) => a.author.username === 'ann' && a.author.following))
  assert.equal(await list(ctx, '/articles/feed', ctx.bob), { articles: [], articlesCount: 0 })
  const guest = await call(ctx.app.kernel, 'GET', '/articles/feed')
  assert.is(guest.status, 401)
})

/** The statements a request ran, the token's lookup (cached by the auth plugin for 1 s) left out. */
function statements(res: InjectResponse): string[] {
  return eventsOf(res.events, 'query.executed')
    .map((e) => e.data.sql)
    .filter((sql) => !sql.includes('auth_tokens'))
}

test('a page costs two statements whatever its size: no N+1 for author, following, favorited, favoritesCount', async (ctx) => {
  for (const path of ['/articles', '/articles/feed', '/articles?tag=all']) {
    const counts: number[] = []
    for (const limit of [1, 5, 20]) {
      const res = await call(
        ctx.app.kernel,
        'GET',
        `${path}${path.includes('?') ? '&' : '?'}limit=${limit}`,
        {
          token: ctx.cy,
        },
      )
      assert.is(res.json<ListBody>().articles.length, limit)
      counts.push(statements(res).length)
    }
    assert.equal(counts, [2, 2, 2], path)
  }
  const one = await call(ctx.app.kernel, 'GET', '/articles/a25', { token: ctx.cy })
  assert.is(statements(one).length, 1)
})

test.run()
