import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { servePlayground, type ServedApp } from './serve-process.js'

// A token logged out on one playground process is refused by another process on the same
// PostgreSQL database. PGlite belongs to one process, so this suite exists only on the PostgreSQL
// pass (DATABASE_URL=postgresql://…; CI runs it).
const test = suite<{ db?: TestDatabase; apps: ServedApp[] }>('revocation', { apps: [] })
const onPostgres = /^postgres(ql)?:\/\//.test(process.env.DATABASE_URL ?? '')

test.after(async (context) => {
  await Promise.all(context.apps.map((app) => app.stop()))
  await context.db?.drop()
})

async function me(app: ServedApp, token: string): Promise<number> {
  return (await fetch(`${app.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } }))
    .status
}

if (onPostgres) {
  test('refuses on a second process a token logged out on the first', async (context) => {
    const db = (context.db = await createTestDatabase())
    const env = {
      DATABASE_URL: db.url,
      NODE_ENV: 'production',
      FW_APP_KEY: 'base64:e2e-revocation-key',
    }
    const first = await servePlayground(env)
    context.apps.push(first)
    const second = await servePlayground(env)
    context.apps.push(second)
    const login = await fetch(`${first.url}/account/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'admin', password: 'admin-pass' }),
    })
    assert.is(login.status, 200, first.output())
    const { access_token: token } = (await login.json()) as { access_token: string }
    assert.is(await me(second, token), 200)
    const out = await fetch(`${first.url}/account/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    })
    assert.is(out.status, 200)
    assert.is(await me(first, token), 401)
    // The second process trusts a verified token for at most tokenCacheMs (1 s) before it asks
    // the database again.
    await new Promise((r) => setTimeout(r, 1200))
    assert.is(await me(second, token), 401)
  })
}

test.run()
