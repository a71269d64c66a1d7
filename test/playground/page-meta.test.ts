import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { type TestDatabase } from 'fw/plugins/database'
import { bootApp, playground, tokenOf } from '../fixtures/booted-app.js'

// Search engines (and Lighthouse's SEO audit) read a page's summary from its meta description:
// every page of the playground's layout carries one, each page its own.
const test = suite<{ db: TestDatabase; kernel: Kernel; token: string }>(
  'playground page descriptions',
)

bootApp(test, playground({ FW_APP_KEY: 'base64:page-meta-test-key' }))

test.before(async (context) => {
  // The health dashboard is for signed-in users.
  context.token = await tokenOf(context.kernel, 'editor')
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
