import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import {
  DATABASE_IMPORT,
  databaseSetup,
  tempAppDatabase,
  type TempAppDatabase,
} from './temp-app-database.js'

// A migration whose `up` is an empty list (the stub `fw make:migration` writes) is not written
// yet: `fw migrate` neither runs nor records it, the migrations after it wait, and the seed too;
// `--status` says so, and `fw db:seed` names it. Once its SQL is written, the next `fw migrate`
// runs it, then the others. On a fresh PostgreSQL database on the PostgreSQL pass, a PGlite
// directory otherwise.
const test = suite<TempAppDatabase>('a migration not written yet')

const source = (written: boolean) => ({
  preamble: DATABASE_IMPORT,
  setup: databaseSetup(
    [
      { name: '20260101000000_create_notes', up: ['create table notes (id int)'] },
      {
        name: '20260102000000_add_body',
        up: written ? ['alter table notes add column body text'] : [],
        down: ['alter table notes drop column body'],
      },
      {
        name: '20260103000000_create_tags',
        up: ['create table tags (id int)'],
        down: ['drop table tags'],
      },
    ],
    'insert into notes (id) values (1)',
  ),
})

tempAppDatabase(test, 'fw-unwritten-', source(false))

const fw = (args: readonly string[], env: NodeJS.ProcessEnv) =>
  runCli(args, { env, timeoutMs: 180_000 })

test('fw migrate stops at it, records nothing of it, and says so in one line', async ({ env }) => {
  const { code, stdout, stderr } = await fw(['migrate'], env)
  assert.is(code, 0, stderr)
  assert.match(stdout, 'migrated 20260101000000_create_notes')
  assert.not.match(stdout, 'migrated 20260102000000_add_body')
  assert.not.match(stdout, 'migrated 20260103000000_create_tags')
  assert.not.match(stdout, 'Seeded')
  assert.match(
    stdout,
    'Migration 20260102000000_add_body is not written yet (its up has no statements): not run, nor the 1 after it',
  )
  const status = await fw(['migrate', '--status'], env)
  assert.is(status.code, 0, status.stderr)
  assert.match(status.stdout, 'ran      20260101000000_create_notes')
  assert.match(
    status.stdout,
    'pending  20260102000000_add_body (not written yet: its up has no statements)',
  )
  assert.match(status.stdout, 'pending  20260103000000_create_tags\n')
  // What waits on the migrations names the one to write, rather than sending back to fw migrate.
  const seed = await fw(['db:seed'], env)
  assert.is(seed.code, 1)
  assert.match(
    seed.stderr,
    '2 migration(s) have not run (first: 20260102000000_add_body, not written yet: its up has no statements). Write its SQL, or delete it, then run fw migrate.',
  )
})

test('once written, the next fw migrate runs it, then those after it, then the seed', async ({
  app,
  env,
}) => {
  app.rewrite(source(true))
  const { code, stdout, stderr } = await fw(['migrate'], env)
  assert.is(code, 0, stderr)
  assert.match(stdout, '  migrated 20260102000000_add_body\n  migrated 20260103000000_create_tags')
  assert.match(stdout, 'Seeded')
  // Its SQL ran: the column is there, so its down reverts it.
  const rollback = await fw(['migrate:rollback', '--step', '2'], env)
  assert.is(rollback.code, 0, rollback.stderr)
  assert.match(rollback.stdout, 'reverted 20260102000000_add_body')
})

test.run()
