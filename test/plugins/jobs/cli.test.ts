// The jobs commands as a user runs them: bad input answered with a message and exit 1, never a
// stack; `fw serve --with-worker` runs jobs in the server's process and lets a running one finish
// on SIGTERM. PostgreSQL with DATABASE_URL, else a PGlite directory.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { codesOf, preparedDatabase, runFw, runFwCommands, startFw } from './worker-process.js'

const test = suite<{ db: { url: string; drop(): Promise<void> } }>('jobs commands')

test.before(async (context) => {
  context.db = await preparedDatabase()
})
test.after(({ db }) => db.drop())

test('answers bad input with a message and exit 1', async ({ db }) => {
  const cases: Array<[string[], RegExp]> = [
    [['jobs:retry', 'not-a-uuid'], /'not-a-uuid' is not a job id/],
    [['jobs:retry', '6f1c2a4e-0000-4000-8000-000000000000'], /no failed job has the id/],
    [['jobs:list', '--state', 'bogus'], /--state must be one of created, retry/],
    [['jobs:list', '--limit', '0'], /--limit must be a whole number/],
    [['jobs:dispatch', 't.noop', '{bad'], /the payload is not JSON/],
    [['jobs:dispatch', 'nope'], /no job named 'nope' \(defined: t\.noop/],
    [['jobs:dispatch', 't.noop', '{}', '--delay', '1.5'], /--delay must be a whole number/],
    [['work', '--queues', 'nope'], /--queues names 'nope'/],
    [['work', '--concurrency', '0'], /--concurrency must be a whole number from 1/],
  ]
  // What each command answers, not how a process starts: one child runs them all.
  const results = await runFwCommands(
    cases.map(([args]) => args),
    db.url,
  )
  for (const [i, [args, message]] of cases.entries()) {
    const { code, stdout, stderr } = results[i]!
    const output = stdout + stderr
    assert.is(code, 1, `${args.join(' ')}: ${output}`)
    assert.match(output, message)
    assert.not.match(output, /\n\s+at /, `no stack for ${args.join(' ')}`)
  }
})

test('fw serve --with-worker runs jobs and finishes a running one on SIGTERM', async ({ db }) => {
  const dispatched = await runFwCommands(
    [
      ['jobs:dispatch', 't.noop', '{"n":41}'],
      ['jobs:dispatch', 't.slow', '{"n":42,"ms":1500}'],
    ],
    db.url,
  )
  assert.equal(codesOf(dispatched), [0, 0])
  const served = startFw(['serve', '--port', '0', '--with-worker'], db.url)
  await served.waitFor(/ran t\.noop 41 attempt 1/)
  await served.waitFor(/started t\.slow 42 attempt 1/)
  served.child.kill('SIGTERM')
  assert.is(await served.exited, 0, served.output())
  assert.match(served.output(), /ran t\.slow 42 attempt 1[^]*fw: stopped\./)
  // Nothing of the worker holds the stopped process open (test/fixtures/loop-drained.mjs).
  assert.match(served.output(), /fw: stopped\.\nevent loop drained\n/)
  const { output } = await runFw(['jobs:list', '--json'], db.url)
  const states = (JSON.parse(output) as Array<{ name: string; state: string }>).map(
    (j) => `${j.name} ${j.state}`,
  )
  assert.equal(states.sort(), ['t.noop completed', 't.slow completed'])
})

test('fw work --port answers readiness: ready while working, 503 from SIGTERM on', async ({
  db,
}) => {
  assert.is((await runFw(['jobs:dispatch', 't.slow', '{"n":51,"ms":4000}'], db.url)).code, 0)
  const worker = startFw(['work', '--port', '0', '--queues', 't.slow'], db.url)
  await worker.waitFor(/fw: worker ready: t\.slow \(health on http:\/\/[^)]+\)/)
  const base = /health on (http:\/\/[^)]+)\)/.exec(worker.output())![1]!.replace(/\/$/, '')
  const ready = await fetch(`${base}/health/ready`)
  assert.equal([ready.status, await ready.json()], [200, { status: 'ready' }])
  await worker.waitFor(/started t\.slow 51 attempt 1/)
  worker.child.kill('SIGTERM')
  await worker.waitFor(/SIGTERM received, finishing running jobs/)
  const draining = await fetch(`${base}/health/ready`)
  assert.is(draining.status, 503)
  assert.is(((await draining.json()) as { status: string }).status, 'unready')
  assert.is(await worker.exited, 0, worker.output())
  assert.match(worker.output(), /ran t\.slow 51 attempt 1[^]*fw: stopped\./)
  assert.match(worker.output(), /fw: stopped\.\nevent loop drained\n/)
})

test.run()
