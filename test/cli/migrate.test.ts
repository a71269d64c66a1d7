import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli as run } from 'fw/testing'
import { cliDatabase, type CliDatabase } from '../fixtures/cli-database.js'

/** The CLI with room for a loaded machine (the playground's migrate and seed take 20 s there). */
const runCli = (args: readonly string[], options: { env: NodeJS.ProcessEnv }) =>
  run(args, { ...options, timeoutMs: 180_000 })

// `fw migrate` on the playground, against a database of this suite's own: a fresh PostgreSQL
// database on the PostgreSQL pass, a PGlite directory otherwise (in-memory PGlite would not outlive
// each CLI process).
const test = suite<CliDatabase>('migrate', { url: '' })
cliDatabase(test, 'fw-migrate-')

test('lists the pending migration, runs it with the seed, then has nothing left to do', async ({
  url,
  dir,
}) => {
  const env = { DATABASE_URL: url }
  const before = await runCli(['migrate', '--status'], { env })
  if (dir !== undefined) {
    // PGlite: the directory holds no database yet, and --status makes none.
    assert.is(before.code, 1)
    assert.match(before.stderr, `The database directory ${dir} does not exist`)
  } else {
    assert.is(before.code, 0, before.stderr)
    assert.match(before.stdout, /pending\s+\S*create_playground_tables/)
    assert.match(before.stdout, '0 ran, 4 pending')
    assert.match(before.stdout, /pending\s+\S*create_auth_tables/)
  }

  const run = await runCli(['migrate'], { env })
  assert.is(run.code, 0, run.stderr)
  assert.match(run.stdout, /migrated\s+\S*create_playground_tables/)
  assert.match(run.stdout, 'Seeded the empty database.')

  const after = await runCli(['migrate', '--status'], { env })
  assert.match(after.stdout, '4 ran, 0 pending')
  const again = await runCli(['migrate'], { env })
  assert.match(again.stdout, 'Nothing to migrate.')
  assert.not.match(again.stdout, 'Seeded')
})

test('exits 1 with one line naming DATABASE_URL when it is not a database URL', async () => {
  const { code, stderr } = await runCli(['migrate', '--status'], {
    env: { DATABASE_URL: 'mysql://nope' },
  })
  assert.is(code, 1)
  assert.match(stderr, 'DATABASE_URL')
  assert.not.match(stderr, '    at ')
})

test.run()
