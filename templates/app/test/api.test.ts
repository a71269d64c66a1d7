import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Kernel } from 'fw'
import { createTestApp } from 'fw/testing'
import createApp from '../app.js'

let kernel: Kernel
before(async () => {
  kernel = await createTestApp(createApp)
})
after(async () => {
  await kernel.close()
})

test('GET /api/status answers JSON from the migrated database', async () => {
  const res = await kernel.inject('/api/status')
  assert.equal(res.status, 200)
  assert.deepEqual(res.json(), { app: '__APP_NAME__', users: 0 })
})

test('an unknown API route answers 404', async () => {
  const res = await kernel.inject({
    url: '/api/nothing-here',
    headers: { accept: 'application/json' },
  })
  assert.equal(res.status, 404)
})
