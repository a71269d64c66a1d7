import * as assert from 'uvu/assert'
import { uniqueViolation } from 'fw/plugins/database'
import { databaseSuite, oneTable } from './fixtures.js'

// `uniqueViolation(error)` tells a refused duplicate (SQLSTATE 23505) and names its constraint,
// whichever path wrote: the fast path's StatementError, the ORM's flush, or a driver error as the
// cause of another. Any other failure is not one.

class Handle {
  id!: number
  name!: string
}

const handles = oneTable(
  Handle,
  'handles',
  { name: ['string', "text not null check (name <> '')"] },
  ['create unique index handles_name_lower_unique on handles (lower(name))'],
)

const test = databaseSuite('database: unique violations', handles)

test.before(async (context) => {
  await context.kernel.plugin('database').sql`insert into handles (name) values ('taken')`
})

async function failureOf(write: () => Promise<unknown>): Promise<unknown> {
  try {
    await write()
  } catch (error) {
    return error
  }
  throw new Error('the write succeeded')
}

test('a duplicate through sql: the constraint named', async ({ kernel }) => {
  const db = kernel.plugin('database')
  const error = await failureOf(() => db.sql`insert into handles (name) values (${'TAKEN'})`)
  assert.equal(uniqueViolation(error), { constraint: 'handles_name_lower_unique' })
  assert.equal(uniqueViolation(new Error('wrapped', { cause: error })), {
    constraint: 'handles_name_lower_unique',
  })
})

test('a duplicate through the ORM flush', async ({ kernel }) => {
  const em = kernel.plugin('database').em()
  em.create(Handle, { name: 'Taken' })
  const error = await failureOf(() => em.flush())
  assert.equal(uniqueViolation(error), { constraint: 'handles_name_lower_unique' })
})

test('other failures are not one', async ({ kernel }) => {
  const db = kernel.plugin('database')
  const check = await failureOf(() => db.sql`insert into handles (name) values (${''})`)
  assert.is(uniqueViolation(check), undefined)
  assert.is(uniqueViolation(new Error('no')), undefined)
  assert.is(uniqueViolation(undefined), undefined)
  assert.is(uniqueViolation('23505'), undefined)
  const loop: { code?: string; cause?: unknown } = { code: 'XX000' }
  loop.cause = loop
  assert.is(uniqueViolation(loop), undefined)
})

test.run()
