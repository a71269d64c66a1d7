// The playground's product image upload (the admin area's `images` controller) over a real socket,
// on the test database (PGlite, or PostgreSQL under DATABASE_URL): an editor uploads a PNG, it is
// served back by the static files under /media, a file that only claims to be an image is
// refused, and a user below the area's floor cannot upload.
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../../playground/app.js'
import { tokenOf } from '../fixtures/booted-app.js'
import { PNG } from '../plugins/uploads/upload-app.js'

const KEY = 'base64:playground-upload-test-key'

const test = suite<{
  db: TestDatabase
  kernel: Kernel
  url: string
  dir: string
  tokens: Record<string, string>
}>('playground product image')

test.before(async (context) => {
  context.db = await createTestDatabase()
  context.dir = mkdtempSync(join(tmpdir(), 'fw-playground-uploads-'))
  const config = { admin: { prefix: 'admin' }, features: [], uploads: { dir: context.dir } }
  context.kernel = createApp({
    env: { DATABASE_URL: context.db.url, FW_APP_KEY: KEY, FW_CONFIG: JSON.stringify(config) },
    logger: createMemoryLogger(),
  })
  await context.kernel.boot()
  await context.kernel.plugin('database').prepare()
  context.url = (await context.kernel.listen(0, '127.0.0.1')).url
  context.tokens = {}
  for (const username of ['editor', 'user'])
    context.tokens[username] = await tokenOf(context.kernel, username)
})
test.after(async ({ kernel, db }) => {
  await kernel.close()
  await db.drop()
})

function upload(
  { url, tokens }: { url: string; tokens: Record<string, string> },
  who: string,
  id: number,
  image: File,
) {
  const form = new FormData()
  form.append('image', image)
  return fetch(`${url}/admin/images/upload/${id}`, {
    method: 'POST',
    body: form,
    headers: { accept: 'application/json', authorization: `Bearer ${tokens[who]}` },
  })
}

test('an editor uploads a PNG, served back under /media and shown on the page', async (context) => {
  const { url, tokens } = context
  const page = async () =>
    (
      await fetch(`${url}/admin/images/edit/5`, {
        headers: { accept: 'text/html', authorization: `Bearer ${tokens.editor}` },
      })
    ).text()
  assert.match(await page(), 'No image yet.')
  const res = await upload(context, 'editor', 5, new File([PNG], 'desk.png', { type: 'image/png' }))
  assert.is(res.status, 200)
  assert.equal(await res.json(), { id: 5, image: '/media/products/5.png' })
  const served = await fetch(`${url}/media/products/5.png`)
  assert.is(served.status, 200)
  assert.is(served.headers.get('content-type'), 'image/png')
  assert.equal(Buffer.from(await served.arrayBuffer()), PNG)
  assert.match(await page(), 'src="/media/products/5.png"')
})

test('a file that only claims to be an image is refused and nothing is stored', async (context) => {
  const fake = new File(['<script>alert(1)</script>'.repeat(10)], 'x.png', { type: 'image/png' })
  const res = await upload(context, 'editor', 6, fake)
  assert.is(res.status, 422)
  assert.is(((await res.json()) as { field: string }).field, 'image')
  assert.equal(readdirSync(join(context.dir, 'products')), ['5.png'])
  assert.is((await fetch(`${context.url}/media/products/6.png`)).status, 404)
})

test('a user below the floor cannot upload; a missing product is 404; GET is 405', async (context) => {
  const png = new File([PNG], 'a.png', { type: 'image/png' })
  assert.is((await upload(context, 'user', 5, png)).status, 403)
  assert.is((await upload(context, 'editor', 999_999, png)).status, 404)
  const get = await fetch(`${context.url}/admin/images/upload/5`, {
    headers: { accept: 'application/json', authorization: `Bearer ${context.tokens.editor}` },
  })
  assert.is(get.status, 405)
})

test.run()
