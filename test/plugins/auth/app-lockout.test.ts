// `auth.lockout()`: the sign-in lockout around an app's own login route. Failures (401s) count per
// key, a locked key answers 429 without running the handler, a success clears the count, other
// answers (422, 500) give the attempt back, and the count is the one `/account/login` keeps.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { HttpError, json, type RequestContext } from 'fw'
import { createAuthApp, lockoutRow, login, type AuthApp } from './fixtures.js'

const test = suite<{ app: AuthApp }>('auth lockout on an app route', {} as { app: AuthApp })

interface SignIn {
  email?: unknown
  password?: string
}

/** The probe's sign-in: `right` signs in, `wrong` is a 401, `bad` a 422, `boom` a crash. */
async function signIn(ctx: RequestContext) {
  const { password } = await ctx.body<SignIn>()
  if (password === 'right') return { signed: true }
  if (password === 'bad') return json({ error: 'invalid_body' }, 422)
  if (password === 'boom') throw new Error('the handler failed')
  throw new HttpError(401, { error: 'invalid_credentials' })
}

test.before(async (context) => {
  context.app = await createAuthApp({
    routes(kernel) {
      kernel.middleware(
        'probe.lockout',
        kernel.plugin('auth').lockout({
          key: async (ctx) => {
            const { email } = await ctx.body<SignIn>()
            return typeof email === 'string' ? email : undefined
          },
        }),
      )
      kernel.router.post('probe/signin', signIn).middleware('probe.lockout')
      // Signs in, after moving the lockout table away: settling the attempt then fails.
      kernel.router
        .post('probe/signin-table-away', async (ctx) => {
          await ctx.kernel.plugin('database').runStatement({
            sql: 'alter table "auth_lockouts" rename to "lockouts_away"',
            bindings: [],
          })
          return { signed: true }
        })
        .middleware('probe.lockout')
    },
  })
})
test.after(async ({ app }) => app.close())

function attempt(app: AuthApp, email: unknown, password: string) {
  return app.kernel.inject({ method: 'POST', url: '/probe/signin', body: { email, password } })
}

async function failures(app: AuthApp, key: string): Promise<number | undefined> {
  return (await lockoutRow(app, key))?.failures
}

test('the third failure locks the key: 429 with Retry-After, the handler not run', async ({
  app,
}) => {
  for (let i = 0; i < 3; i++) assert.is((await attempt(app, 'ann@x.test', 'wrong')).status, 401)
  const locked = await attempt(app, 'ann@x.test', 'right')
  assert.is(locked.status, 429)
  assert.is(locked.headers['retry-after'], '60')
  assert.equal(locked.json(), {
    error: 'too_many_attempts',
    message: 'Too many failed sign-ins: try again in 60 s.',
    retry_after: 60,
  })
  // Another key is not locked; the same one written otherwise is.
  assert.is((await attempt(app, 'bob@x.test', 'right')).status, 200)
  assert.is((await attempt(app, '  ANN@X.test ', 'right')).status, 429)
  app.clock.t += 61_000
  assert.is((await attempt(app, 'ann@x.test', 'right')).status, 200)
  assert.is(await failures(app, 'ann@x.test'), undefined, 'a success clears the count')
})

test('a 422 or a crash gives the attempt back; a request without a key is not counted', async ({
  app,
}) => {
  for (let i = 0; i < 4; i++) assert.is((await attempt(app, 'cy@x.test', 'bad')).status, 422)
  assert.is((await attempt(app, 'cy@x.test', 'boom')).status, 500)
  assert.is(await failures(app, 'cy@x.test'), undefined)
  assert.is((await attempt(app, 'cy@x.test', 'wrong')).status, 401)
  assert.is((await attempt(app, 'cy@x.test', 'wrong')).status, 401)
  assert.is((await attempt(app, 'cy@x.test', 'bad')).status, 422)
  assert.is(await failures(app, 'cy@x.test'), 2)
  assert.is((await attempt(app, 'cy@x.test', 'right')).status, 200)
  for (const email of [undefined, '', 42, { $ne: '' }])
    assert.is((await attempt(app, email, 'wrong')).status, 401)
  const rows = await app.kernel
    .plugin('database')
    .em()
    .execute<Record<string, unknown>[]>('select count(*) as n from "auth_lockouts"', [], 'all')
  assert.is(Number(rows[0]!.n), 0, 'no row for an attempt without a key (the others were cleared)')
})

test('a burst of 20 concurrent wrong passwords gets 3 checks; the rest answer 429', async ({
  app,
}) => {
  const replies = await Promise.all(
    Array.from({ length: 20 }, () => attempt(app, 'dee@x.test', 'wrong')),
  )
  const counts: Record<number, number> = {}
  for (const r of replies) counts[r.status] = (counts[r.status] ?? 0) + 1
  assert.equal(counts, { 401: 3, 429: 17 })
  assert.is(await failures(app, 'dee@x.test'), 3)
})

test("the count is /account/login's: failures on the app route lock the account's login", async ({
  app,
}) => {
  for (let i = 0; i < 3; i++) assert.is((await attempt(app, 'User', 'wrong')).status, 401)
  const account = await login(app.kernel, 'user', 'user-pass')
  assert.is(account.status, 429)
  app.clock.t += 61_000
  assert.is((await login(app.kernel, 'user', 'user-pass')).status, 200)
})

test('a count that cannot be settled keeps the handler’s answer and is logged', async ({ app }) => {
  const res = await app.kernel.inject({
    method: 'POST',
    url: '/probe/signin-table-away',
    body: { email: 'eve@x.test', password: 'right' },
  })
  await app.kernel
    .plugin('database')
    .runStatement({ sql: 'alter table "lockouts_away" rename to "auth_lockouts"', bindings: [] })
  assert.is(res.status, 200)
  const logged = app.kernel.logger.entries.filter((e) => e.level === 'error')
  assert.match(logged.at(-1)!.message, 'the lockout count could not be settled')
  assert.is((await lockoutRow(app, 'eve@x.test'))?.failures, 1, 'the attempt stays counted')
})

test.run()
