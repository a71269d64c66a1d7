// The schema-driven fuzz over the Conduit example's API document (test/fuzz/harness.ts): every
// operation with generated valid and invalid inputs, a signed-in user's token where the operation
// names it, and without or with forged ones; records that exist (two users, their articles, a
// comment) named in path parameters. On PGlite, or on PostgreSQL with DATABASE_URL.
// FW_FUZZ_RUNS, FW_FUZZ_SEED and FW_FUZZ_OPS: CONTRIBUTING.md.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { InjectResponse, Kernel } from 'fw'
import { type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../../examples/conduit/app.js'
import { fuzz, fuzzSettings, report } from './harness.js'
import { bootApp } from '../fixtures/booted-app.js'

const test = suite<{ db: TestDatabase; kernel: Kernel }>('fuzz: the Conduit API', {} as never)

bootApp(test, (url) =>
  createApp({ env: { DATABASE_URL: url, NODE_ENV: 'test' }, logger: createMemoryLogger() }),
)

/** A JSON request to the API as a RealWorld client sends it; throws unless `status` answers. */
async function call(
  kernel: Kernel,
  method: string,
  path: string,
  status: number,
  body: Record<string, unknown>,
  token?: string,
): Promise<InjectResponse> {
  const res = await kernel.inject({
    method,
    url: `/api${path}`,
    headers: token === undefined ? {} : { authorization: `Token ${token}` },
    body,
  })
  if (res.status !== status) throw new Error(`${method} ${path}: ${res.status} ${res.body}`)
  return res
}

/** Registers `username`: its token. */
async function register(kernel: Kernel, username: string): Promise<string> {
  const user = { username, email: `${username}@conduit.test`, password: `${username}-pass` }
  const res = await call(kernel, 'POST', '/users', 201, { user })
  return res.json<{ user: { token: string } }>().user.token
}

/** Writes an article as the token's user, with a comment: its slug and the comment's id. */
async function write(kernel: Kernel, token: string, title: string): Promise<[string, string]> {
  const article = { title, description: 'about it', body: 'the text', tagList: ['fuzz'] }
  const res = await call(kernel, 'POST', '/articles', 201, { article }, token)
  const slug = res.json<{ article: { slug: string } }>().article.slug
  const comment = { body: 'a comment' }
  const said = await call(kernel, 'POST', `/articles/${slug}/comments`, 200, { comment }, token)
  return [slug, String(said.json<{ comment: { id: number } }>().comment.id)]
}

test('every operation answers generated requests as the document says', async ({ kernel }) => {
  let token = await register(kernel, 'fuzzer')
  const other = await register(kernel, 'author')
  const [mine, myComment] = await write(kernel, token, 'Fuzzed here')
  const [theirs, theirComment] = await write(kernel, other, 'Written elsewhere')
  const settings = fuzzSettings()
  const findings = await fuzz(
    {
      kernel,
      document: await kernel.plugin('openapi').document(),
      secret: () => `Token ${token}`,
      known: {
        slug: [mine, theirs],
        username: ['fuzzer', 'author'],
        id: [myComment, theirComment],
      },
      // A changed user answers a new token (the old one may be revoked with a new password).
      observe(plan, res) {
        if (plan.label === 'PUT /api/user' && res.status === 200)
          token = res.json<{ user: { token: string } }>().user.token
      },
    },
    settings,
  )
  assert.ok(findings.length === 0, report('conduit', findings, settings))
})

test.run()
