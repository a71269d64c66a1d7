// The Conduit example's entities (examples/conduit/entities.ts) against its SQL migrations, and
// its writes through the request's EntityManager: the declarations state the migrated tables
// exactly (MikroORM's schema comparison finds nothing to change), what the ORM writes is what the
// SQL reads show and the other way round, and each write costs a fixed, small number of statements.
import {
  DatabaseSchema,
  SchemaComparator,
  type SqlEntityManager,
  type SqlSchemaGenerator,
} from '@mikro-orm/knex'
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import * as assert from 'uvu/assert'
import type { InjectResponse } from 'fw'
import { eventsOf } from 'fw/testing'
import { Article, Comment, UserProfile } from '../../examples/conduit/entities.js'
import { call, conduitSuite, register, write, type Conduit } from './conduit-fixtures.js'

const test = conduitSuite('conduit example: entities')

const TABLES = ['user_profiles', 'follows', 'articles', 'favorites', 'comments']

/** The statements a request ran, the token's lookup (cached by the auth plugin) left out. */
function statements(res: InjectResponse): string[] {
  return eventsOf(res.events, 'query.executed')
    .map((e) => e.data.sql.replace(/\s+/g, ' ').trim())
    .filter((sql) => !sql.includes('auth_tokens'))
}

/** The first word of each statement, with its table when it writes one: `insert favorites`. */
function kinds(res: InjectResponse): string[] {
  return statements(res).map((sql) => {
    const write = /^(insert into|update|delete from) "?(\w+)"?/.exec(sql)
    return write === null ? sql.split(' ')[0]! : `${write[1]!.split(' ')[0]} ${write[2]}`
  })
}

const db = (app: Conduit) => app.kernel.plugin('database')

test('the entities state the tables exactly as the migrations create them', async ({ app }) => {
  const orm = db(app).orm
  const em = orm.em as SqlEntityManager
  const platform = em.getPlatform()
  const compare = async (adjust?: (target: DatabaseSchema) => void) => {
    const migrated = await DatabaseSchema.create(
      em.getConnection(),
      platform,
      orm.config,
      undefined,
      undefined,
      TABLES,
    )
    const declared = (orm.schema as SqlSchemaGenerator).getTargetSchema()
    adjust?.(declared)
    const diff = new SchemaComparator(platform).compare(migrated, declared)
    const ours = (names: string[]) => names.filter((n) => TABLES.includes(n.split('.').pop()!))
    return {
      missing: ours(Object.keys(diff.newTables)),
      changed: ours(Object.keys(diff.changedTables)),
      undeclared: ours(Object.keys(diff.removedTables)),
    }
  }
  // Columns, types, nulls, defaults, keys, the unique slug, foreign keys and their rules and names,
  // index names and columns: nothing to change in any of the five tables.
  assert.equal(await compare(), { missing: [], changed: [], undeclared: [] })
  // The comparison sees a difference when there is one (here, a title declared as varchar(255)).
  const varcharTitle = await compare((declared) => {
    const title = declared.getTable('articles')!.getColumn('title')!
    title.type = 'varchar(255)'
    title.mappedType = platform.getMappedType('varchar')
  })
  assert.equal(varcharTitle.changed, ['public.articles'])
})

test('an article written through the ORM is what the SQL reads show, tags exactly as given', async ({
  app,
  ann,
}) => {
  const res = await call(app.kernel, 'POST', '/articles', {
    token: ann,
    body: {
      article: {
        title: 'Tags',
        description: 'd',
        body: 'b',
        tagList: ['null', ' spaced ', 'say "hi"', 'a,b', 'back\\slash'],
      },
    },
  })
  assert.is(res.status, 201)
  assert.equal(kinds(res), ['begin', 'insert articles', 'commit', 'select'])
  const { article } = res.json<{
    article: { slug: string; tagList: string[]; createdAt: string }
  }>()
  assert.equal(article.tagList, ['a,b', 'back\\slash', 'null', 'say "hi"', 'spaced'])
  for (const tag of ['null', 'say "hi"', 'back\\slash']) {
    const listed = await call(app.kernel, 'GET', `/articles?tag=${encodeURIComponent(tag)}`)
    assert.equal(
      listed.json<{ articles: { slug: string }[] }>().articles.map((a) => a.slug),
      [article.slug],
      tag,
    )
  }
  const stored = await db(app).em().findOneOrFail(Article, { slug: article.slug })
  assert.equal(stored.tag_list, article.tagList)
  assert.is(stored.created_at.toISOString(), article.createdAt)
  assert.is(stored.updated_at.getTime(), stored.created_at.getTime())
  const [author] = await db(app).sql<{ id: number }>`select id from users where username = 'ann'`
  assert.is(stored.author.id, author!.id)
})

test('a row the SQL wrote loads as an entity, its references as ids', async ({ app, ann }) => {
  const slug = await write(app.kernel, ann, { title: 'Raw' })
  const [row] = await db(app).sql<{ id: number }>`
    insert into comments (article_id, author_id, body)
      select id, author_id, 'written in SQL' from articles where slug = ${slug}
    returning id`
  const comment = await db(app).em().findOneOrFail(Comment, row!.id)
  assert.is(comment.body, 'written in SQL')
  assert.instance(comment.created_at, Date)
  const article = await db(app).em().findOneOrFail(Article, { slug })
  assert.equal([comment.article.id, comment.author.id], [article.id, article.author.id])
})

test('PUT /articles writes only what changed: the same title keeps the slug, no change no write', async ({
  app,
  ann,
}) => {
  const slug = await write(app.kernel, ann, { title: 'Steady', body: 'one' })
  const put = (article: Record<string, string>) =>
    call(app.kernel, 'PUT', `/articles/${slug}`, { token: ann, body: { article } })
  const same = await put({ title: 'Steady', body: 'one' })
  assert.is(same.status, 200)
  assert.equal(kinds(same), ['select', 'select'])
  const unchanged = same.json<{ article: { slug: string; createdAt: string; updatedAt: string } }>()
  assert.is(unchanged.article.slug, slug)
  assert.is(unchanged.article.updatedAt, unchanged.article.createdAt)
  await new Promise((resolve) => setTimeout(resolve, 5))
  const changed = await put({ body: 'two' })
  assert.equal(kinds(changed), ['select', 'begin', 'update articles', 'commit', 'select'])
  assert.match(statements(changed)[2]!, /^update "articles" set "body" = \?, "updated_at" = \?/)
  const after = changed.json<{ article: { body: string; createdAt: string; updatedAt: string } }>()
  assert.is(after.article.body, 'two')
  assert.ok(after.article.updatedAt > after.article.createdAt)
})

test('favorite and follow are one upsert, twice is once; their undoing one delete', async ({
  app,
  ann,
  bob,
}) => {
  const slug = await write(app.kernel, ann, { title: 'Liked twice' })
  for (let i = 0; i < 2; i++) {
    const res = await call(app.kernel, 'POST', `/articles/${slug}/favorite`, { token: bob })
    assert.equal(kinds(res), ['select', 'insert favorites', 'select'])
    assert.match(statements(res)[1]!, /on conflict \("user_id", "article_id"\) do nothing$/)
    assert.is(res.json<{ article: { favoritesCount: number } }>().article.favoritesCount, 1)
  }
  const unfavorite = await call(app.kernel, 'DELETE', `/articles/${slug}/favorite`, { token: bob })
  assert.equal(kinds(unfavorite), ['select', 'delete favorites', 'select'])
  for (let i = 0; i < 2; i++) {
    const res = await call(app.kernel, 'POST', '/profiles/ann/follow', { token: bob })
    assert.equal(kinds(res), ['select', 'insert follows'])
  }
  const [follows] = await db(app).sql<{ n: number }>`select count(*)::int as n from follows`
  assert.is(follows!.n, 1)
  const unfollow = await call(app.kernel, 'DELETE', '/profiles/ann/follow', { token: bob })
  assert.equal(kinds(unfollow), ['select', 'delete follows'])
})

test('deleting an article through the ORM takes its comments and favorites with it', async ({
  app,
  ann,
  bob,
}) => {
  const slug = await write(app.kernel, ann, { title: 'Short-lived' })
  await call(app.kernel, 'POST', `/articles/${slug}/favorite`, { token: bob })
  const comment = await call(app.kernel, 'POST', `/articles/${slug}/comments`, {
    token: bob,
    body: { comment: { body: 'first' } },
  })
  assert.equal(kinds(comment), ['select', 'begin', 'insert comments', 'commit', 'select'])
  const { id } = comment.json<{ comment: { id: number } }>().comment
  const deleted = await call(app.kernel, 'DELETE', `/articles/${slug}`, { token: ann })
  assert.is(deleted.status, 204)
  assert.equal(kinds(deleted), ['select', 'begin', 'delete articles', 'commit'])
  const [left] = await db(app).sql<{ comments: number; favorites: number }>`
    select (select count(*)::int from comments where id = ${id}) as comments,
      (select count(*)::int from favorites f where not exists
        (select 1 from articles a where a.id = f.article_id)) as favorites`
  assert.equal(left, { comments: 0, favorites: 0 })
})

test('PUT /user: the account and its profile in one transaction, answered from the entities', async ({
  app,
}) => {
  const token = await register(app.kernel, 'eli')
  const first = await call(app.kernel, 'PUT', '/user', {
    token,
    body: { user: { username: 'eli2', bio: 'Hello.' } },
  })
  assert.is(first.status, 200)
  assert.equal(kinds(first), [
    'select',
    'select',
    'select',
    'begin',
    'insert user_profiles',
    'update users',
    'commit',
  ])
  const me = await call(app.kernel, 'GET', '/user', { token })
  assert.equal(first.json(), me.json())
  assert.equal(me.json<{ user: object }>().user, {
    email: 'eli@conduit.test',
    token,
    username: 'eli2',
    bio: 'Hello.',
    image: null,
  })
  const image = await call(app.kernel, 'PUT', '/user', {
    token,
    body: { user: { image: 'https://img.test/e.png' } },
  })
  assert.equal(kinds(image).slice(3), ['begin', 'update user_profiles', 'commit'])
  const [eli] = await db(app).sql<{ id: number }>`select id from users where username = 'eli2'`
  const profile = await db(app).em().findOneOrFail(UserProfile, { user: eli!.id })
  assert.equal([profile.bio, profile.image], ['Hello.', 'https://img.test/e.png'])
})

test('fw route:list on the example builds no entity: MikroORM stays unloaded', () => {
  // The CLI in a process of its own, with the probe that reports which packages were loaded.
  const probe = fileURLToPath(new URL('../cli/fixtures/report-loaded.mjs', import.meta.url))
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '-C', 'fw-source', '--import', probe, 'cli/bin.ts', 'route:list', '--json'],
    {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      encoding: 'utf8',
      env: {
        ...process.env,
        FW_APP: 'examples/conduit/app.ts',
        FW_REPORT_PACKAGES: 'clipanion,@mikro-orm/core',
      },
    },
  )
  assert.is(result.status, 0, result.stderr)
  const routes = (JSON.parse(result.stdout) as { path: string }[]).map((r) => r.path)
  assert.ok(routes.includes('api/articles/{slug}'), routes.join(', '))
  assert.ok(result.stderr.includes('loaded: ["clipanion"]'), result.stderr)
})

test.run()
