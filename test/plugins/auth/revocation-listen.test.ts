// How a served app hears revocations on PostgreSQL (`LISTEN fw_auth_revoked`), and what its
// verification cache does while that connection is down. The cache is set to 60 s here, so a
// refusal within the test can only come from a notification or from the cache being bypassed.
// PGlite has no other process to hear from: the suite exists on the PostgreSQL pass only.
import pg from 'pg'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createAuthApp, login, type AuthApp } from './fixtures.js'
import { onPostgres } from '../../fixtures/on-postgres.js'

interface Context {
  app: AuthApp
  sql: pg.Client
}
const test = suite<Context>('auth revocation notifications', {} as Context)

test.before(async (context) => {
  if (!onPostgres) return
  context.app = await createAuthApp({ realClock: true, auth: { tokenCacheMs: 60_000 } })
  await context.app.kernel.listen(0, '127.0.0.1')
  context.sql = new pg.Client({ connectionString: context.app.db.url })
  await context.sql.connect()
  await listeners(context.sql, 1, true)
})

test.after(async (context) => {
  if (!onPostgres) return
  await context.sql.end()
  await context.app.close()
})

/**
 * Waits until `n` notification connections of this database are idle, their last statement a
 * `LISTEN` when `fresh` (a new connection), else any (a `pg_notify` confirming a notification).
 */
async function listeners(sql: pg.Client, n: number, fresh = false): Promise<number[]> {
  for (let i = 0; i < 200; i++) {
    const { rows } = await sql.query<{ pid: number }>(
      `select pid from pg_stat_activity
       where datname = current_database() and application_name = 'fw-notifications'
         and state = 'idle' and (not $1 or query like 'listen %')`,
      [fresh],
    )
    if (rows.length === n) return rows.map((r) => r.pid)
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error(`expected ${n} listening connections`)
}

/** Signs admin in and verifies the token once, so that this process holds it in its cache. */
async function cachedToken(app: AuthApp): Promise<{ token: string; id: string }> {
  const res = await login(app.kernel, 'admin', 'admin-pass')
  assert.is(res.status, 200)
  const token = (res.json() as { access_token: string }).access_token
  const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as {
    jti: string
  }
  assert.is(await whoami(app, token), 200)
  return { token, id: claims.jti }
}

async function whoami(app: AuthApp, token: string): Promise<number> {
  const res = await app.kernel.inject({
    url: '/probe/whoami',
    headers: { authorization: `Bearer ${token}` },
  })
  return (res.json() as { identity: unknown }).identity === null ? 401 : 200
}

/** Revokes a row behind the app's back (no notification). */
async function revokeRow(sql: pg.Client, id: string): Promise<void> {
  await sql.query(`update "auth_tokens" set "revoked" = true where "id" = $1`, [id])
}

/**
 * Announces the revocation of `id` as another process would (`NOTIFY`), then waits, 1 s at most,
 * for this process to refuse `token`.
 */
async function announceRevoked(
  app: AuthApp,
  sql: pg.Client,
  { token, id }: { token: string; id: string },
): Promise<void> {
  await sql.query('select pg_notify($1, $2)', ['fw_auth_revoked', id])
  // The notification travels on its own connection: wait for this process to have had it.
  for (let i = 0; i < 100 && (await whoami(app, token)) === 200; i++)
    await new Promise((r) => setTimeout(r, 10))
  assert.is(await whoami(app, token), 401)
}

if (onPostgres) {
  test('trusts a verified token from its cache while listening', async ({ app, sql }) => {
    const { token, id } = await cachedToken(app)
    await revokeRow(sql, id)
    assert.is(await whoami(app, token), 200) // cached: the row is not read again
  })

  test('evicts a token at once when another process announces its revocation', async ({
    app,
    sql,
  }) => {
    const { token, id } = await cachedToken(app)
    await revokeRow(sql, id)
    await announceRevoked(app, sql, { token, id })
  })

  test('bypasses the cache while the listening connection is down, then listens again', async ({
    app,
    sql,
  }) => {
    const { token, id } = await cachedToken(app)
    const [pid] = await listeners(sql, 1)
    await sql.query('select pg_terminate_backend($1)', [pid])
    // Once the process has seen the connection go (it logs it), and until it is back, a
    // revocation nobody announces is seen at once: the cache is not used.
    const lost = () =>
      app.kernel.logger.entries.some((e) => /notifications connection lost/.test(e.message))
    for (let i = 0; i < 200 && !lost(); i++) await new Promise((r) => setTimeout(r, 10))
    assert.ok(lost(), 'the process noticed the lost connection')
    await revokeRow(sql, id)
    assert.is(await whoami(app, token), 401)

    // Back (a new connection, LISTENing): the cache is used again, and notifications evict.
    const [again] = await listeners(sql, 1, true)
    assert.is.not(again, pid)
    const next = await cachedToken(app)
    await revokeRow(sql, next.id)
    assert.is(await whoami(app, next.token), 200) // cached again
    await announceRevoked(app, sql, next)
  })

  test('answers a logout once this process confirmed it evicted the token', async ({ app }) => {
    const { token } = await cachedToken(app)
    const out = await app.kernel.inject({
      method: 'POST',
      url: '/account/logout',
      headers: { authorization: `Bearer ${token}` },
    })
    assert.is(out.status, 200)
    assert.is(await whoami(app, token), 401)
    assert.not.ok(
      app.kernel.logger.entries.some((e) => /not every instance confirmed/.test(e.message)),
      'the logout was confirmed by every listening connection',
    )
  })
}

test.run()
