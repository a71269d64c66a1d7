// The auth plugin's daily job: with the jobs plugin registered, `auth.cleanup` is defined and
// scheduled, and a run deletes expired tokens and sessions, expired pending logins and spent
// lockouts, keeping everything still in force.
import { randomUUID } from 'node:crypto'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import auth from 'fw/plugins/auth'
import database, { createTestDatabase } from 'fw/plugins/database'
import jobs from 'fw/plugins/jobs'
import { createTestKernel } from 'fw/testing'
import { eventually } from './fixtures.js'

const test = suite('auth cleanup job')

test('removes what expired and keeps what is in force, daily', async () => {
  const db = await createTestDatabase()
  const kernel = createTestKernel({
    plugins: [[database, { url: db.url, entities: [] }], [jobs], [auth]],
    config: { jobs: { poll_interval: 1 } },
  })
  try {
    await kernel.boot()
    const sql = kernel.plugin('database')
    await sql.prepare()
    const nowS = Math.floor(Date.now() / 1000)
    const nowMs = Date.now()
    const [user] = await sql.sql<{ id: number }>`insert into users (username, email, password_hash)
      values ('ann', 'ann@example.test', 'x') returning id`
    const token = (kind: string, expires: number | null) =>
      sql.sql`insert into auth_tokens (id, user_id, kind, token_hash, expires)
        values (${randomUUID()}, ${user!.id}, ${kind}, ${randomUUID()}, ${expires})`
    await token('access', nowS - 10)
    await token('web_session', nowS - 1)
    await token('access', nowS + 3600)
    await token('access', null)
    await sql.sql`insert into auth_pending_logins (id, user_id, expires_at)
      values ('gone', ${user!.id}, ${nowMs - 1}), ('live', ${user!.id}, ${nowMs + 60_000})`
    await sql.sql`insert into auth_lockouts (username, failures, last_failure_at, locked_until) values
      ('old', 5, ${nowMs - 3_600_000}, ${nowMs - 1_000_000}),
      ('locked', 5, ${nowMs - 1000}, ${nowMs + 60_000}),
      ('recent', 2, ${nowMs - 1000}, 0)`
    const queue = kernel.plugin('jobs')
    assert.ok(queue.definitions().has('auth.cleanup'))
    await queue.work()
    const [schedule] = await sql.sql<{ cron: string }>`select cron from fw_jobs.schedule
      where name = 'auth.cleanup'`
    assert.equal(schedule, { cron: '17 3 * * *' })
    await queue.dispatch('auth.cleanup' as never, {} as never)
    await eventually('the cleanup', async () =>
      (await queue.list({ name: 'auth.cleanup' })).some((j) => j.state === 'completed'),
    )
    const tokens = await sql.sql<{ expires: string | null }>`select expires from auth_tokens
      order by expires nulls last`
    assert.equal(
      tokens.map((t) => (t.expires === null ? null : Number(t.expires))),
      [nowS + 3600, null],
    )
    const pending = await sql.sql<{ id: string }>`select id from auth_pending_logins`
    assert.equal(pending, [{ id: 'live' }])
    const lockouts = await sql.sql<{ username: string }>`select username from auth_lockouts
      order by username`
    assert.equal(lockouts, [{ username: 'locked' }, { username: 'recent' }])
  } finally {
    await kernel.close()
    await db.drop()
  }
})

test.run()
