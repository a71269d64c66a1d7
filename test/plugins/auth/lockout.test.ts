import * as assert from 'uvu/assert'
import { appSuite } from '../../fixtures/app-suite.js'
import {
  ALICE_SECRET,
  cookieFrom,
  createAuthApp,
  login,
  totpAt,
  type AuthApp,
  secondFactor,
} from './fixtures.js'

const test = appSuite('auth lockout', createAuthApp)

/** `n` wrong passwords, each answered 401 (never waiting for a lock between them). */
async function fail(app: AuthApp, username: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await login(app.kernel, username, 'wrong')
    assert.is(res.status, 401, `failure ${i + 1} of ${username}`)
    assert.equal(res.json(), { error: 'invalid_credentials' })
  }
}

async function expectLocked(app: AuthApp, username: string, password: string, seconds: number) {
  const res = await login(app.kernel, username, password)
  assert.is(res.status, 429)
  assert.equal(res.json(), { error: 'too_many_attempts', retry_after: seconds })
  assert.is(res.headers['retry-after'], String(seconds))
}

test('locks for 60 s at 3 failures: the third answers 401, the next 429 even with the right password', async ({
  app,
}) => {
  await fail(app, 'user', 3)
  await expectLocked(app, 'user', 'user-pass', 60)
  app.clock.t += 59_000
  await expectLocked(app, 'user', 'user-pass', 1)
  app.clock.t += 1_000
  assert.is((await login(app.kernel, 'user', 'user-pass')).status, 200)
})

test('steps up: 5 failures 300 s, 7 failures 900 s, 10 failures 3600 s', async ({ app }) => {
  await fail(app, 'editor', 3)
  await expectLocked(app, 'editor', 'wrong', 60)
  app.clock.t += 60_000
  await fail(app, 'editor', 1) // 4: 60 s again
  await expectLocked(app, 'editor', 'editor-pass', 60)
  app.clock.t += 60_000
  await fail(app, 'editor', 1) // 5
  await expectLocked(app, 'editor', 'editor-pass', 300)
  app.clock.t += 300_000
  await fail(app, 'editor', 1) // 6: 300 s
  app.clock.t += 300_000
  await fail(app, 'editor', 1) // 7: 900 s
  await expectLocked(app, 'editor', 'editor-pass', 900)
  for (const n of [8, 9, 10]) {
    app.clock.t += 899_000 // inside the 900 s window, so the count goes on
    await expectLocked(app, 'editor', 'editor-pass', 1)
    app.clock.t += 1_000
    await fail(app, 'editor', 1)
    if (n === 10) await expectLocked(app, 'editor', 'editor-pass', 3600)
  }
  app.clock.t += 3_600_000
  assert.is((await login(app.kernel, 'editor', 'editor-pass')).status, 200)
})

test('keys the count by the trimmed, lower-cased username', async ({ app }) => {
  await fail(app, 'Admin', 1)
  await fail(app, ' ADMIN', 1)
  await fail(app, 'admin ', 1)
  await expectLocked(app, 'admin', 'admin-pass', 60)
  app.clock.t += 60_000
  assert.is((await login(app.kernel, 'admin', 'admin-pass')).status, 200)
})

test('starts the count again after a failure more than 900 s after the previous one', async ({
  app,
}) => {
  await fail(app, 'user', 2)
  app.clock.t += 900_001
  await fail(app, 'user', 2) // 1 and 2 again, not 3 and 4
  assert.is((await login(app.kernel, 'user', 'user-pass')).status, 200)
})

test('clears the count on a completed sign-in only', async ({ app }) => {
  await fail(app, 'user', 2)
  assert.is((await login(app.kernel, 'user', 'user-pass')).status, 200)
  await fail(app, 'user', 2) // 1 and 2: no lock
  assert.is((await login(app.kernel, 'user', 'user-pass')).status, 200)
})

test('locks unknown usernames as well (the same answers as for a user)', async ({ app }) => {
  await fail(app, 'ghost', 3)
  await expectLocked(app, 'ghost', 'anything', 60)
  app.clock.t += 60_000
})

test('counts wrong second-factor codes; a correct first leg does not clear the count', async ({
  app,
}) => {
  await fail(app, 'alice', 2)
  const first = await login(app.kernel, 'alice', 'alice-pass')
  assert.is(first.status, 401)
  const pending = cookieFrom(first.headers['set-cookie'], 'fw_2fa')!
  const wrong = await secondFactor(app.kernel, '000000', pending)
  assert.is(wrong.status, 401) // the third failure itself still answers 401
  const locked = await secondFactor(app.kernel, totpAt(ALICE_SECRET, app.clock.t), pending)
  assert.is(locked.status, 429)
  assert.equal(locked.json(), { error: 'too_many_attempts', retry_after: 60 })
  assert.is(locked.headers['retry-after'], '60')
  await expectLocked(app, 'alice', 'alice-pass', 60)
  // After the lock the pending login (still inside its 300 s) completes and clears the count.
  app.clock.t = (Math.floor((app.clock.t + 60_000) / 30_000) + 1) * 30_000
  const done = await secondFactor(app.kernel, totpAt(ALICE_SECRET, app.clock.t), pending)
  assert.is(done.status, 200)
  await fail(app, 'alice', 2)
  assert.is((await login(app.kernel, 'alice', 'alice-pass')).status, 401) // not 429
})

test.run()
