import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import fc from 'fast-check'
import type { Kernel } from 'fw'
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'
import { oneTable } from './fixtures.js'
import { DEMO_KEY, playgroundApp, type PlaygroundApp } from '../api/fixtures.js'
import {
  call,
  register,
  startConduit,
  write,
  type Conduit,
} from '../../examples/conduit-fixtures.js'

// Any string is a value, never SQL, on every path a value takes to the database and back, and the
// answer is the one the value calls for, whichever database runs (this file runs on PGlite, and
// on PostgreSQL with DATABASE_URL): a value holding NUL (U+0000, which no text column holds) is
// refused as bad input (400 over HTTP, a rejection in code), any other reads back exactly as it
// was written. Generated strings mix `;`, quotes, `$$`, backslashes, `?`, comment and LIKE
// characters, NUL and unicode; the examples add a 10 KB value. A fixed seed: the same cases each run.

class Memo {
  id!: number
  body!: string
}

const memos = oneTable(Memo, 'memos', { body: ['text', 'text not null'] })

interface Ctx {
  db: TestDatabase
  kernel: Kernel
  playground: PlaygroundApp
  conduit: Conduit
  token: string
  slug: string
}

const test = suite<Ctx>('database: any value round-trips on every path', {} as Ctx)

test.before(async (context) => {
  context.db = await createTestDatabase()
  context.kernel = createTestKernel({
    plugins: [[database, { url: context.db.url, ...memos }]],
  })
  await context.kernel.boot()
  await context.kernel.plugin('database').prepare()
  context.playground = await playgroundApp()
  context.conduit = await startConduit()
  context.token = await register(context.conduit.kernel, 'writer')
  context.slug = await write(context.conduit.kernel, context.token, { title: 'Values' })
})

test.after(async ({ kernel, db, playground, conduit }) => {
  await kernel.close()
  await db.drop()
  await playground.close()
  await conduit.close()
})

const piece = fc.oneof(
  fc.constantFrom(
    ';',
    "'",
    '"',
    '$$',
    '$tag$',
    '\\',
    '\\\\',
    '?',
    '??',
    '--',
    '/*',
    '*/',
    '%',
    '_',
  ),
  fc.constantFrom('\u0000', 'é', 'ß', '😀', '\u200b', '\u202e', '\n', '\t', ' '),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
)
const value = fc.array(piece, { maxLength: 10 }).map((parts) => parts.join(''))
const RUNS = { seed: 51, numRuns: 20, examples: [['x;'.repeat(5120)], ["'; drop table memos; --"]] }

const hasNul = (text: string) => text.includes('\u0000')

/** What a promise gave: its value, or `refused`. */
function settle<T>(promise: Promise<T>): Promise<T | 'refused'> {
  return promise.then(
    (v) => v,
    () => 'refused' as const,
  )
}

test('ORM flush and find, the fast path, raw execute: stored and read back, NUL refused', async ({
  kernel,
}) => {
  const api = kernel.plugin('database')
  await fc.assert(
    fc.asyncProperty(value, async (text) => {
      const expected = hasNul(text) ? 'refused' : text
      const em = api.em()
      const flushed = await settle(
        (async () => {
          const memo = em.create(Memo, { body: text })
          await em.flush()
          const found = await api.em().findOneOrFail(Memo, { id: memo.id, body: text })
          return found.body
        })(),
      )
      assert.is(flushed, expected, 'ORM')
      const fast = await settle(api.sql<{ v: string }>`select ${text}::text as v`)
      assert.is(fast === 'refused' ? fast : fast[0]!.v, expected, 'sql')
      const raw = await settle(api.em().execute<{ v: string }[]>('select ?::text as v', [text]))
      assert.is(raw === 'refused' ? raw : raw[0]!.v, expected, 'execute')
    }),
    RUNS,
  )
})

test('playground: the API stores, reads and filters by the value; a login by it answers 401', async ({
  playground,
}) => {
  const { kernel } = playground
  const headers = { accept: 'application/json', apikey: DEMO_KEY }
  let n = 0
  await fc.assert(
    fc.asyncProperty(value, async (text) => {
      const notes = `v${text}`
      const stored = await kernel.inject({
        method: 'POST',
        url: '/api/v1/products',
        headers,
        body: { name: 'Value', sku: `VAL-${++n}`, price: 1, stock: 1, notes },
      })
      const login = await kernel.inject({
        method: 'POST',
        url: '/account/login',
        body: { username: notes, password: 'bad' },
      })
      if (hasNul(text)) {
        assert.is(stored.status, 400, stored.body)
        assert.is(login.status, 400, login.body)
        return
      }
      assert.is(stored.status, 201, stored.body)
      assert.is(login.status, 401, login.body)
      const { id } = stored.json<{ id: number }>()
      const read = await kernel.inject({ url: `/api/v1/products/${id}`, headers })
      assert.is(read.json<{ notes: string }>().notes, notes)
      const filter = JSON.stringify([{ field: 'notes', op: '=', value: notes }])
      const listed = await kernel.inject({
        url: `/api/v1/products?fields=id,notes&filter=${encodeURIComponent(filter)}`,
        headers,
      })
      assert.is(listed.status, 200, listed.body)
      assert.equal(listed.json<{ data: unknown[] }>().data, [{ id, notes }])
    }),
    RUNS,
  )
})

test('Conduit: a comment holding the value is stored and listed as written', async ({
  conduit,
  token,
  slug,
}) => {
  await fc.assert(
    fc.asyncProperty(value, async (text) => {
      const body = `v${text}`
      const added = await call(conduit.kernel, 'POST', `/articles/${slug}/comments`, {
        token,
        body: { comment: { body } },
      })
      if (hasNul(text)) {
        assert.is(added.status, 400, added.body)
        return
      }
      assert.is(added.status, 200, added.body)
      const { id } = added.json<{ comment: { id: number } }>().comment
      const listed = await call(conduit.kernel, 'GET', `/articles/${slug}/comments`)
      const comments = listed.json<{ comments: { id: number; body: string }[] }>().comments
      assert.is(comments.find((c) => c.id === id)?.body, body)
    }),
    RUNS,
  )
})

test.run()
