// The product import on a playground that does not listen (a plugin author's `fw/playground`
// under `kernel.inject()`): no worker has opened the queue, so the upload's dispatch, inside the
// transaction that records the import, is the queue's first use (on PGlite, where that
// transaction holds the one connection). On PGlite, or PostgreSQL under DATABASE_URL.
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import { playgroundApp, tokenOf, type PlaygroundApp } from '../plugins/api/fixtures.js'

const test = suite<{ app: PlaygroundApp; dir: string }>('playground product import by inject')

test.before(async (context) => {
  context.dir = mkdtempSync(join(tmpdir(), 'fw-playground-inject-imports-'))
  context.app = await playgroundApp({ admin: { prefix: 'admin' }, uploads: { dir: context.dir } })
})
test.after(async ({ app, dir }) => {
  await app.close()
  rmSync(dir, { recursive: true, force: true })
})

test('an upload answered by inject() queues its job, which a worker started later runs', async ({
  app,
}) => {
  const { kernel } = app
  const authorization = `Bearer ${await tokenOf(kernel, 'admin')}`
  const form = new FormData()
  form.append('csv', new File(['name,sku,price,stock\nLamp,INJECT-1,9.5,2\n'], 'one.csv'))
  const request = new Request('http://playground.test/', { method: 'POST', body: form })
  const res = await kernel.inject({
    method: 'POST',
    url: '/admin/imports/upload',
    headers: {
      'content-type': request.headers.get('content-type')!,
      accept: 'application/json',
      authorization,
    },
    body: Buffer.from(await request.arrayBuffer()),
  })
  assert.is(res.status, 303, res.body)
  const progress = String(res.headers.location).replace('/show/', '/progress/')
  await kernel.plugin('jobs').work()
  for (;;) {
    const p = (
      await kernel.inject({ url: progress, headers: { accept: 'application/json', authorization } })
    ).json<{
      status: string
      inserted: number
    }>()
    if (p.status !== 'queued' && p.status !== 'running') {
      assert.equal(p, { ...p, status: 'completed', inserted: 1 })
      break
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
})

test.run()
