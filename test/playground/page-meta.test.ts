import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../../playground/app.js'

// Search engines (and Lighthouse's SEO audit) read a page's summary from its meta description:
// every page of the playground's layout carries one, each page its own.
const test = suite<{ db: TestDatabase; kernel: Kernel; token: string }>(
  'playground page descriptions',
)

test.before(async (context) => {
  context.db = await createTestDatabase()
  context.kernel = createApp({
    env: { DATABASE_URL: context.db.url, FW_APP_KEY: 'base64:page-meta-test-key' },
    logger: createMemoryLogger(),
  })
  await context.kernel.boot()
  await context.kernel.plugin('database').prepare()
  // The health dashboard is for signed-in users.
  const login = await context.kernel.inject({
    method: 'POST',
    url: '/account/login',
    body: { username: 'editor', password: 'editor-pass' },
  })
  context.token = login.json<{ access_token: string }>().access_token
})

test.after(async ({ kernel, db }) => {
  await kernel.close()
  await db.drop()
})

const DESCRIPTION = /<meta name="description" content="([^"]{20,})">/

test('the home page, /login, /products and /health each carry a description of their own', async ({
  kernel,
  token,
}) => {
  const seen = new Set<string>()
  for (const url of ['/', '/login', '/products', '/health']) {
    const res = await kernel.inject({
      url,
      headers: { accept: 'text/html', authorization: `Bearer ${token}` },
    })
    assert.is(res.status, 200, url)
    const match = DESCRIPTION.exec(res.body)
    assert.ok(match, `${url} has a meta description`)
    seen.add(match[1]!)
  }
  assert.is(seen.size, 4)
})

test.run()
