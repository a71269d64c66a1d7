import pg from 'pg'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { servePlaygrounds, type PlaygroundCluster, type ServedApp } from './serve-process.js'
import { onPostgres } from '../fixtures/on-postgres.js'

// A token logged out on one playground process is refused by another process on the same
// PostgreSQL database at once, though that process has it in its 1 s verification cache: the
// revoking process sends `NOTIFY fw_auth_revoked, <token id>` and every process `LISTEN`s and
// evicts it. PGlite belongs to one process, so this suite exists only on the PostgreSQL pass
// (DATABASE_URL=postgresql://…; CI runs it).
interface Context {
  cluster?: PlaygroundCluster
  sql?: pg.Client
  first?: ServedApp
  second?: ServedApp
}
const test = suite<Context>('revocation', {})

test.before(async (context) => {
  if (!onPostgres) return
  const cluster = (context.cluster = await servePlaygrounds(2, {
    FW_APP_KEY: 'base64:e2e-revocation-key',
  }))
  context.first = cluster.apps[0]
  context.second = cluster.apps[1]
  context.sql = new pg.Client({ connectionString: cluster.db.url })
  await context.sql.connect()
  await bothListening(context.sql)
})

test.after(async (context) => {
  await context.sql?.end()
  await context.cluster?.close()
})

/** Waits until both processes' notification connections have run their `LISTEN`. */
async function bothListening(sql: pg.Client): Promise<void> {
  for (let i = 0; i < 100; i++) {
    const { rows } = await sql.query<{ n: string }>(
      `select count(*) as n from pg_stat_activity
       where datname = current_database() and application_name = 'fw-notifications'
         and query like 'listen %'`,
    )
    if (Number(rows[0]!.n) === 2) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error('the two processes did not LISTEN in 5 s')
}

async function login(app: ServedApp, username: string, password: string): Promise<string> {
  const res = await fetch(`${app.url}/account/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username, password }),
  })
  assert.is(res.status, 200, app.output())
  return ((await res.json()) as { access_token: string }).access_token
}

async function me(app: ServedApp, token: string): Promise<{ status: number; username?: string }> {
  const res = await fetch(`${app.url}/api/v1/me`, { headers: { authorization: `Bearer ${token}` } })
  const body = (await res.json()) as { username?: string }
  return { status: res.status, username: body.username }
}

async function logout(app: ServedApp, token: string): Promise<void> {
  const out = await fetch(`${app.url}/account/logout`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  })
  assert.is(out.status, 200)
}

if (onPostgres) {
  test('trusts a token it verified a moment ago without reading its row (the cache is on)', async ({
    first,
    second,
    sql,
  }) => {
    const token = await login(first!, 'editor', 'editor-pass')
    assert.equal(await me(second!, token), { status: 200, username: 'editor' })
    // The row changes behind the process's back: within the cache window it still answers from
    // what it verified. So the next test's refusals come from the notification, not a re-read.
    await sql!.query(`update "users" set "username" = 'editor-renamed' where "username" = 'editor'`)
    try {
      assert.equal(await me(second!, token), { status: 200, username: 'editor' })
    } finally {
      await sql!.query(
        `update "users" set "username" = 'editor' where "username" = 'editor-renamed'`,
      )
    }
  })

  test('refuses at once on the other process a token logged out on one, though it was cached', async ({
    first,
    second,
  }) => {
    // Ten rounds, each way: the other process used the token just before (so it is cached).
    for (let round = 0; round < 10; round++) {
      const [here, there] = round % 2 === 0 ? [first!, second!] : [second!, first!]
      const token = await login(here, 'admin', 'admin-pass')
      assert.is((await me(there, token)).status, 200)
      assert.is((await me(here, token)).status, 200)
      await logout(here, token)
      assert.is((await me(there, token)).status, 401, `round ${round}: still trusted elsewhere`)
      assert.is((await me(here, token)).status, 401)
    }
  })

  test('refuses a web session signed out on one process at once on the other', async ({
    first,
    second,
  }) => {
    const form = await fetch(`${first!.url}/login`)
    const formCookie = /fw_login_csrf=([^;]+)/.exec(form.headers.get('set-cookie') ?? '')?.[1]
    const formCsrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1]
    assert.ok(formCookie !== undefined && formCsrf !== undefined, 'the form has a CSRF token')
    const signIn = await fetch(`${first!.url}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `fw_login_csrf=${formCookie}`,
      },
      body: new URLSearchParams({ username: 'user', password: 'user-pass', _csrf: formCsrf! }),
    })
    assert.is(signIn.status, 303)
    const session = /fw_session=([^;]+)/.exec(signIn.headers.get('set-cookie') ?? '')?.[1]
    assert.ok(session !== undefined, 'a session cookie is set')
    const page = await fetch(`${first!.url}/login`, {
      headers: { cookie: `fw_session=${session}` },
    })
    const csrf = /<meta name="csrf" content="([^"]+)">/.exec(await page.text())?.[1]
    assert.ok(csrf !== undefined, 'a signed-in page carries the CSRF meta tag')
    const headers = { cookie: `fw_session=${session}`, 'x-csrf-token': csrf! }
    const whoami = async (app: ServedApp) =>
      (await fetch(`${app.url}/api/v1/me`, { headers })).status
    assert.is(await whoami(second!), 200)
    const out = await fetch(`${first!.url}/logout`, { method: 'POST', redirect: 'manual', headers })
    assert.is(out.status, 303)
    assert.is(await whoami(second!), 401)
  })
}

test.run()
