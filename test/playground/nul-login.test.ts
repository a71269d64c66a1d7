import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger, type MemoryLogger } from 'fw/testing'
import createApp from '../../playground/app.js'

// A username with a NUL character (U+0000) is bad input, not a database outage: the login answers
// 400 `invalid_input` (never 503 with Retry-After), on PGlite and PostgreSQL alike, and nothing it
// logs repeats the value.

const test = suite<{ db: TestDatabase; kernel: Kernel; logger: MemoryLogger }>(
  'playground NUL login',
)

test.before(async (context) => {
  context.db = await createTestDatabase()
  context.logger = createMemoryLogger()
  context.kernel = createApp({
    env: { DATABASE_URL: context.db.url, FW_APP_KEY: 'base64:nul-login-test-key' },
    logger: context.logger,
  })
  await context.kernel.boot()
  await context.kernel.plugin('database').prepare()
})

test.after(async ({ kernel, db }) => {
  await kernel.close()
  await db.drop()
})

const INVALID_INPUT = {
  error: 'invalid_input',
  message: 'The request holds a character the database cannot store (NUL, U+0000).',
}

function assertNotAnOutage({ kernel, logger }: { kernel: Kernel; logger: MemoryLogger }) {
  assert.is(kernel.plugin('database').availability().state, 'ready')
  const logged = JSON.stringify(logger.entries)
  assert.not.match(logged, 'database unavailable')
  assert.not.match(logged, 'ad\\u0000min')
}

test('POST /account/login (JSON) with a NUL in the username answers 400 invalid_input', async (context) => {
  const res = await context.kernel.inject({
    method: 'POST',
    url: '/account/login',
    body: { username: 'ad\u0000min', password: 'admin-pass' },
  })
  assert.is(res.status, 400, res.body)
  const { error, message } = res.json<{ error: string; message: string }>()
  assert.equal({ error, message }, INVALID_INPUT)
  assert.is(res.headers['retry-after'], undefined)
  assertNotAnOutage(context)
})

test('POST /login (the form, with its CSRF token) with a NUL in the username answers 400', async (context) => {
  const { kernel } = context
  const form = await kernel.inject('/login')
  assert.is(form.status, 200)
  const csrf = /name="_csrf" value="([^"]+)"/.exec(form.body)?.[1]
  const setCookie = ([] as string[]).concat(form.headers['set-cookie'] ?? [])
  const formCookie = setCookie
    .map((line) => /^fw_login_csrf=([^;]*)/.exec(line)?.[1])
    .find((v) => v !== undefined)
  assert.ok(csrf !== undefined && formCookie !== undefined, 'the form has its token and cookie')
  const res = await kernel.inject({
    method: 'POST',
    url: '/login',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    body: new URLSearchParams({ _csrf: csrf, username: 'ad\u0000min', password: 'x' }).toString(),
    cookies: { fw_login_csrf: formCookie },
  })
  assert.is(res.status, 400, res.body)
  assert.is(res.headers['retry-after'], undefined)
  assert.match(res.body, 'cannot store')
  assertNotAnOutage(context)
})

test('the same logins without the NUL still answer as before', async ({ kernel }) => {
  const res = await kernel.inject({
    method: 'POST',
    url: '/account/login',
    body: { username: 'admin', password: 'wrong' },
  })
  assert.is(res.status, 401, res.body)
})

test.run()
