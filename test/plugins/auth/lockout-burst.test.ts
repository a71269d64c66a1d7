// Concurrent attempts against one username on one kernel: every attempt reserves its lockout slot
// before its credential is checked, so a burst gets exactly as many checks as the first lock step
// allows (3), whatever the concurrency. The two-process version is test/e2e/lockout-burst.test.ts.
import * as assert from 'uvu/assert'
import { appSuite } from '../../fixtures/app-suite.js'
import {
  ALICE_SECRET,
  cookieFrom,
  createAuthApp,
  lockoutRow,
  login,
  totpAt,
  type AuthApp,
  secondFactor,
} from './fixtures.js'

const test = appSuite('auth lockout burst', createAuthApp)

/** `n` wrong passwords at once; answers how many got each status. */
async function burst(app: AuthApp, username: string, n: number): Promise<Record<number, number>> {
  const replies = await Promise.all(
    Array.from({ length: n }, (_, i) => login(app.kernel, username, `wrong-${i}`)),
  )
  const counts: Record<number, number> = {}
  for (const r of replies) counts[r.status] = (counts[r.status] ?? 0) + 1
  return counts
}

test('checks exactly 3 of 30 concurrent wrong passwords; the right one then gets 429', async ({
  app,
}) => {
  assert.equal(await burst(app, 'user', 30), { 401: 3, 429: 27 })
  const right = await login(app.kernel, 'user', 'user-pass')
  assert.is(right.status, 429)
  assert.equal(right.json(), { error: 'too_many_attempts', retry_after: 60 })
  assert.is(right.headers['retry-after'], '60')
  assert.equal(await lockoutRow(app, 'user'), {
    failures: 3,
    last_failure_at: app.clock.t,
    locked_until: app.clock.t + 60_000,
  })
  app.clock.t += 60_000
  assert.is((await login(app.kernel, 'user', 'user-pass')).status, 200)
  assert.is(await lockoutRow(app, 'user'), undefined)
})

test('checks one more per lock step: after the 60 s lock a burst gets 1 check, then 300 s', async ({
  app,
}) => {
  assert.equal(await burst(app, 'editor', 30), { 401: 3, 429: 27 })
  app.clock.t += 60_000
  assert.equal(await burst(app, 'editor', 30), { 401: 1, 429: 29 }) // 4: 60 s again
  app.clock.t += 60_000
  assert.equal(await burst(app, 'editor', 30), { 401: 1, 429: 29 }) // 5: 300 s
  assert.equal((await lockoutRow(app, 'editor'))?.locked_until, app.clock.t + 300_000)
  app.clock.t += 300_000
  assert.is((await login(app.kernel, 'editor', 'editor-pass')).status, 200)
})

test('reserves for unknown usernames as well, with the same answers', async ({ app }) => {
  assert.equal(await burst(app, 'ghost', 30), { 401: 3, 429: 27 })
  assert.is((await lockoutRow(app, 'ghost'))?.failures, 3)
  app.clock.t += 60_000
})

test('counts concurrent wrong second-factor codes the same way', async ({ app }) => {
  const first = await login(app.kernel, 'alice', 'alice-pass')
  assert.is(first.status, 401)
  assert.equal(first.json(), { error: 'two_factor_required', methods: ['totp'] })
  const pending = cookieFrom(first.headers['set-cookie'], 'fw_2fa')!
  const right = totpAt(ALICE_SECRET, app.clock.t)
  const wrong = right === '000000' ? '111111' : '000000'
  const replies = await Promise.all(
    Array.from({ length: 30 }, () => secondFactor(app.kernel, wrong, pending)),
  )
  assert.is(replies.filter((r) => r.status === 401).length, 3)
  assert.is(replies.filter((r) => r.status === 429).length, 27)
  const locked = await secondFactor(app.kernel, right, pending)
  assert.is(locked.status, 429)
  assert.is((await lockoutRow(app, 'alice'))?.failures, 3)
  app.clock.t += 60_000
  const done = await secondFactor(app.kernel, totpAt(ALICE_SECRET, app.clock.t), pending)
  assert.is(done.status, 200)
  assert.is(await lockoutRow(app, 'alice'), undefined)
})

test('a correct first leg of a two-factor user neither clears nor adds to the count', async ({
  app,
}) => {
  // No failures: the first leg leaves no row behind.
  assert.is((await login(app.kernel, 'alice', 'alice-pass')).status, 401)
  assert.is(await lockoutRow(app, 'alice'), undefined)

  // Two failures: the count, its time and the (absent) lock are as they were.
  for (let i = 0; i < 2; i++) assert.is((await login(app.kernel, 'alice', 'wrong')).status, 401)
  const before = await lockoutRow(app, 'alice')
  assert.equal(before, { failures: 2, last_failure_at: app.clock.t, locked_until: 0 })
  app.clock.t += 10_000
  const first = await login(app.kernel, 'alice', 'alice-pass')
  assert.equal(first.json(), { error: 'two_factor_required', methods: ['totp'] })
  assert.equal(await lockoutRow(app, 'alice'), before)

  // Four failures (locked 60 s, then expired): the third-step lock is restored as it was.
  app.clock.t += 10_000
  assert.is((await login(app.kernel, 'alice', 'wrong')).status, 401) // 3: locks 60 s
  app.clock.t += 60_000
  assert.is((await login(app.kernel, 'alice', 'wrong')).status, 401) // 4: locks 60 s
  app.clock.t += 60_000
  const four = await lockoutRow(app, 'alice')
  assert.is(four?.failures, 4)
  assert.is((await login(app.kernel, 'alice', 'alice-pass')).status, 401) // first leg: 5, given back
  assert.equal(await lockoutRow(app, 'alice'), four)
  assert.is((await login(app.kernel, 'alice', 'wrong')).status, 401) // 5: locks 300 s
  assert.is((await login(app.kernel, 'alice', 'alice-pass')).status, 429)
  app.clock.t += 300_000
})

test('a burst of correct first legs leaves the count as it was', async ({ app }) => {
  // Each leg holds the slot it reserved while its password is checked; once all are back, the
  // count is as before (some legs may have met a lock another leg held for a moment: 429).
  const before = await lockoutRow(app, 'alice')
  const replies = await Promise.all(
    Array.from({ length: 20 }, () => login(app.kernel, 'alice', 'alice-pass')),
  )
  for (const r of replies) assert.ok(r.status === 401 || r.status === 429)
  assert.ok(replies.some((r) => r.status === 401))
  assert.equal(await lockoutRow(app, 'alice'), before)
  assert.is(before?.failures, 5)
})

test.run()
