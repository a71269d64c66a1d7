import { Secret, TOTP } from 'otpauth'
import { generate as otplibGenerate, verify as otplibVerify } from 'otplib'
import * as assert from 'uvu/assert'
import { appSuite } from '../../fixtures/app-suite.js'
import type { Kernel } from 'fw'
import { generateTotpSecret, TOTP_SECRET_BITS } from 'fw/plugins/auth'
import { ALICE_SECRET, cookieFrom, createAuthApp, login, totpAt, type AuthApp } from './fixtures.js'

const test = appSuite('auth login2fa', createAuthApp)

/** Passes alice's first leg and answers the pending-login cookie. */
async function firstLeg(app: AuthApp): Promise<string> {
  const res = await login(app.kernel, 'alice', 'alice-pass')
  assert.is(res.status, 401)
  return cookieFrom(res.headers['set-cookie'], 'fw_2fa')!
}

function code(
  kernel: Kernel,
  pending: string | undefined,
  body: unknown,
  url = '/account/login2fa',
) {
  return kernel.inject({
    method: 'POST',
    url,
    body: body as Record<string, unknown>,
    cookies: pending === undefined ? {} : { fw_2fa: pending },
  })
}

/** Sends alice's code of the clock's time step, or of the step `offsetMs` away, for `pending`. */
function aliceCode(app: AuthApp, pending: string | undefined, offsetMs = 0) {
  return code(app.kernel, pending, { code: totpAt(ALICE_SECRET, app.clock.t + offsetMs) })
}

/**
 * Moves the clock to the start of a fresh 30 s step (so ±1 step is unambiguous); answers alice's
 * code of that step.
 */
function nextStep(app: AuthApp): string {
  app.clock.t = (Math.floor(app.clock.t / 30_000) + 2) * 30_000 + 1_000
  return totpAt(ALICE_SECRET, app.clock.t)
}

test("signs alice in with a code from otpauth, and with one from otplib 13's defaults", async ({
  app,
}) => {
  // otplib 13 refuses secrets under 128 bits by default (its guardrails): alice's is 160.
  for (const makeCode of [
    (ms: number) =>
      new TOTP({ secret: Secret.fromBase32(ALICE_SECRET) }).generate({ timestamp: ms }),
    (ms: number) => otplibGenerate({ secret: ALICE_SECRET, epoch: Math.floor(ms / 1000) }),
  ]) {
    nextStep(app)
    const pending = await firstLeg(app)
    const res = await code(app.kernel, pending, { code: await makeCode(app.clock.t) })
    assert.is(res.status, 200, res.body)
    assert.is(res.json<{ user: { username: string } }>().user.username, 'alice')
  }
})

test('enrolment makes 160-bit secrets that otplib 13 accepts; createUser refuses a weaker one', async ({
  app,
}) => {
  const secret = generateTotpSecret()
  assert.is(TOTP_SECRET_BITS, 160)
  assert.match(secret, /^[A-Z2-7]{32}$/)
  assert.is.not(secret, generateTotpSecret())
  const token = await otplibGenerate({ secret })
  assert.ok((await otplibVerify({ secret, token })).valid)
  const auth = app.kernel.plugin('auth')
  for (const weak of ['JBSWY3DPEHPK3PXP', 'JBSWY3DPEHPK3PXPJBSWY3DPE', 'not base32!']) {
    try {
      await auth.createUser({
        username: `weak-${weak.length}`,
        password: 'pw',
        email: 'weak@example.test',
        totpSecret: weak,
      })
      assert.unreachable(weak)
    } catch (error) {
      assert.is((error as { code?: string }).code, 'FW_ERR_AUTH_TOTP_SECRET_WEAK', weak)
      assert.match(String((error as Error).message), /128|base32/)
    }
  }
  // 128 bits exactly (26 base32 characters) is enough.
  const created = await auth.createUser({
    username: 'strong-enough',
    email: 'strong@example.test',
    password: 'pw',
    totpSecret: 'JBSWY3DPEHPK3PXPJBSWY3DPEH',
  })
  assert.is(created.username, 'strong-enough')
})

test('completes with a correct TOTP code: the same 200 shape as a direct login', async ({
  app,
}) => {
  nextStep(app)
  const pending = await firstLeg(app)
  const res = await aliceCode(app, pending)
  assert.is(res.status, 200)
  const body = res.json<Record<string, unknown>>()
  assert.equal(Object.keys(body).sort(), ['access_token', 'status', 'token_type', 'user'])
  assert.equal(body.user, { id: 4, username: 'alice', email: 'alice@playground.test' })
  // The pending login is spent: its cookie is cleared and cannot be used again.
  assert.match(String(res.headers['set-cookie']), /fw_2fa=;/)
  nextStep(app)
  const again = await aliceCode(app, pending)
  assert.equal(again.json(), { error: 'invalid_code' })
})

test('accepts a code of the previous or next step, not two steps away', async ({ app }) => {
  nextStep(app)
  let pending = await firstLeg(app)
  const previous = await aliceCode(app, pending, -30_000)
  assert.is(previous.status, 200)
  nextStep(app)
  pending = await firstLeg(app)
  const far = await aliceCode(app, pending, -60_000)
  assert.is(far.status, 401)
  const next = await aliceCode(app, pending, 30_000)
  assert.is(next.status, 200)
})

test('refuses a replayed TOTP code, and a code of a step at or before the last accepted one', async ({
  app,
}) => {
  const used = nextStep(app)
  assert.is((await code(app.kernel, await firstLeg(app), { code: used })).status, 200)
  const replay = await code(app.kernel, await firstLeg(app), { code: used })
  assert.is(replay.status, 401)
  assert.equal(replay.json(), { error: 'invalid_code' })
  // The previous step is inside the ±1 window but at or before the last accepted step.
  const older = await aliceCode(app, await firstLeg(app), -30_000)
  assert.is(older.status, 401)
  await clear(app)
})

test('answers an empty code 400 missing_code and spends no attempt', async ({ app }) => {
  nextStep(app)
  const pending = await firstLeg(app)
  for (let i = 0; i < 6; i++) {
    const res = await code(app.kernel, pending, { code: '  ' })
    assert.is(res.status, 400)
    assert.equal(res.json(), { error: 'missing_code' })
  }
  const res = await aliceCode(app, pending)
  assert.is(res.status, 200)
})

test('never reads a code from the query string: it counts as absent', async ({ app }) => {
  nextStep(app)
  const pending = await firstLeg(app)
  const res = await code(
    app.kernel,
    pending,
    {},
    `/account/login2fa?code=${totpAt(ALICE_SECRET, app.clock.t)}`,
  )
  assert.is(res.status, 400)
  assert.equal(res.json(), { error: 'missing_code' })
  await clear(app, pending)
})

test('answers a wrong code 401 invalid_code and keeps the pending login', async ({ app }) => {
  nextStep(app)
  const pending = await firstLeg(app)
  const wrong = await code(app.kernel, pending, { code: '000000' })
  assert.is(wrong.status, 401)
  assert.equal(wrong.json(), { error: 'invalid_code' })
  const right = await aliceCode(app, pending)
  assert.is(right.status, 200)
})

test('answers 401 invalid_code without a pending login, with a foreign cookie, or after 300 s', async ({
  app,
}) => {
  const c = nextStep(app)
  assert.equal((await code(app.kernel, undefined, { code: c })).json(), { error: 'invalid_code' })
  assert.equal((await code(app.kernel, 'forged-value', { code: c })).json(), {
    error: 'invalid_code',
  })
  const pending = await firstLeg(app)
  app.clock.t += 301_000
  nextStep(app)
  const late = await aliceCode(app, pending)
  assert.is(late.status, 401)
  assert.equal(late.json(), { error: 'invalid_code' })
  await clear(app)
})

test('offers backup_code while unused codes remain, and takes each code once', async ({ app }) => {
  const auth = app.kernel.plugin('auth')
  const codes = await auth.generateBackupCodes(4)
  assert.is(codes.length, 10)
  assert.is(new Set(codes).size, 10)
  for (const c of codes) assert.match(c, /^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/)
  const first = await login(app.kernel, 'alice', 'alice-pass')
  assert.equal(first.json(), { error: 'two_factor_required', methods: ['totp', 'backup_code'] })
  const pending = cookieFrom(first.headers['set-cookie'], 'fw_2fa')!
  // Typed in upper case without dashes: still the code.
  const ok = await code(app.kernel, pending, { code: codes[0]!.replaceAll('-', '').toUpperCase() })
  assert.is(ok.status, 200)
  const reuse = await code(app.kernel, await firstLeg(app), { code: codes[0] })
  assert.is(reuse.status, 401)
  assert.equal(reuse.json(), { error: 'invalid_code' })
  await clear(app)
  // Spend the other nine: then backup_code is no longer offered.
  for (const c of codes.slice(1)) {
    assert.is((await code(app.kernel, await firstLeg(app), { code: c })).status, 200)
  }
  const last = await login(app.kernel, 'alice', 'alice-pass')
  assert.equal(last.json(), { error: 'two_factor_required', methods: ['totp'] })
})

/** Signs alice in with a fresh TOTP step, which clears her failure count. */
async function clear(app: AuthApp, pending?: string): Promise<void> {
  nextStep(app)
  const res = await code(app.kernel, pending ?? (await firstLeg(app)), {
    code: totpAt(ALICE_SECRET, app.clock.t),
  })
  assert.is(res.status, 200)
}

test.run()
