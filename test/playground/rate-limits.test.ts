// The playground's rate limits: its API answers with the `api` limiter's RateLimit fields and its
// document lists the 429 there; the sign-in form answers 429 once the `login` limiter's points are
// spent, with the other pages unaffected.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { type TestDatabase } from 'fw/plugins/database'
import { DEMO_APPLICATION } from '../../playground/demo-data.js'
import { bootApp, playground } from '../fixtures/booted-app.js'

const test = suite<{ db: TestDatabase; kernel: Kernel }>('playground: rate limits')

bootApp(test, playground({ FW_APP_KEY: 'base64:playground-limits-key' }))

test('the API answers with the api limiter and documents its 429', async ({ kernel }) => {
  const res = await kernel.inject({
    url: '/api/v1/products?per_page=1',
    headers: { apikey: DEMO_APPLICATION.apiKey, accept: 'application/json' },
  })
  assert.is(res.status, 200)
  assert.is(res.headers['ratelimit-policy'], '"api";q=1000;w=60')
  assert.match(String(res.headers['ratelimit']), /^"api";r=\d+;t=\d+$/)
  const doc = await kernel.plugin('openapi').document()
  const refused = doc.paths['/api/v1/products']?.get?.responses['429'] as { description: string }
  assert.match(refused.description, /limiter `api`: 1000 per 60 s/)
})

test('the sign-in form answers 429 once the login limiter is spent', async ({ kernel }) => {
  const statuses: number[] = []
  for (let i = 0; i < 21; i++) {
    const res = await kernel.inject({
      method: 'POST',
      url: '/login',
      headers: { accept: 'application/json' },
      body: { username: 'nobody', password: 'wrong' },
    })
    statuses.push(res.status)
  }
  assert.not.ok(statuses.slice(0, 20).includes(429), statuses.join(' '))
  assert.is(statuses[20], 429)
  assert.is((await kernel.inject('/login')).status, 200)
})

test.run()
