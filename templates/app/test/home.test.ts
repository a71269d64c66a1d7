import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Kernel } from 'fw'
import { createTestApp } from 'fw/testing'
import createApp from '../app.js'

// The app on a fresh in-memory database, migrated, for this file.
let kernel: Kernel
before(async () => {
  kernel = await createTestApp(createApp)
})
after(async () => {
  await kernel.close()
})

test('GET / answers the home page in the layout', async () => {
  const res = await kernel.inject('/')
  assert.equal(res.status, 200)
  assert.match(res.headers['content-type'] as string, /text\/html/)
  assert.match(res.body, /<title>Home · __APP_NAME__<\/title>/)
  assert.match(res.body, /Welcome to __APP_NAME__/)
})

test('the home page greets a signed-in user by name', async () => {
  await kernel
    .plugin('auth')
    .createUser({ username: 'ada', password: 'a long passphrase', email: 'ada@example.test' })
  const login = await kernel.inject({
    method: 'POST',
    url: '/account/login',
    body: { username: 'ada', password: 'a long passphrase' },
  })
  assert.equal(login.status, 200, login.body)
  const { access_token } = login.json<{ access_token: string }>()
  const res = await kernel.inject({
    url: '/',
    headers: { authorization: `Bearer ${access_token}` },
  })
  assert.match(res.body, /Signed in as <strong>ada<\/strong>/)
})
