import * as assert from 'uvu/assert'
import { sql } from 'fw/plugins/database'
import { appSuite } from '../fixtures/app-suite.js'
import { call, errorsOf, register, startConduit } from './conduit-fixtures.js'

// Registrations and profile changes that race for one username or email: the check before the
// write answers the usual case, the database's unique indexes hold when requests arrive at once.
// Exactly one wins; every other gets RealWorld's 422, never a 500 or a second account.

const test = appSuite('conduit example: races for a name', startConduit)

const BURST = 8

function statuses(responses: { status: number }[]): Record<number, number> {
  const counts: Record<number, number> = {}
  for (const r of responses) counts[r.status] = (counts[r.status] ?? 0) + 1
  return counts
}

// Each burst registers BURST accounts that share one value, `field`, written another way by each.
const BURSTS = [
  {
    field: 'username',
    user: (i: number) => ({
      username: 'Racer',
      email: `racer${i}@conduit.test`,
      password: 'pw-racer',
    }),
    stored: 'racer',
  },
  {
    field: 'email',
    user: (i: number) => ({
      username: `mailer${i}`,
      email: 'Same@conduit.test',
      password: 'pw-mail',
    }),
    stored: 'same@conduit.test',
  },
] as const

for (const { field, user, stored } of BURSTS) {
  test(`a burst of registrations for one ${field}: one account`, async ({ app }) => {
    const responses = await Promise.all(
      Array.from({ length: BURST }, (_, i) =>
        call(app.kernel, 'POST', '/users', { body: { user: user(i) } }),
      ),
    )
    assert.equal(statuses(responses), { 201: 1, 422: BURST - 1 })
    for (const r of responses.filter((r) => r.status === 422))
      assert.equal(errorsOf(r), [`${field} has already been taken`])
    const column = sql.identifier(field)
    const [row] = await app.kernel
      .plugin('database')
      .query(
        sql<{ n: number }>`select count(*)::int as n from users where lower(${column}) = ${stored}`,
      )
    assert.is(row!.n, 1)
  })
}

test('two users renaming themselves to one name at once: one succeeds', async ({ app }) => {
  const tokens = await Promise.all(['pat', 'sam', 'kim', 'lee'].map((n) => register(app.kernel, n)))
  const responses = await Promise.all(
    tokens.map((token) =>
      call(app.kernel, 'PUT', '/user', { token, body: { user: { username: 'chosen' } } }),
    ),
  )
  assert.equal(statuses(responses), { 200: 1, 422: tokens.length - 1 })
  for (const r of responses.filter((r) => r.status === 422))
    assert.equal(errorsOf(r), ['username has already been taken'])
})

test.run()
