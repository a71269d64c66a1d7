// `fw work` stops as `fw serve` does: on SIGTERM it takes no more jobs, lets a running one finish
// (exit 0, the job completed once), and past `--drain-timeout` hands it back to its queue, where
// the next worker runs it (once: the aborted attempt recorded nothing). PostgreSQL with
// DATABASE_URL, else a PGlite directory (one worker process at a time).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { preparedDatabase, runFw, startFw } from './worker-process.js'

const test = suite('fw work SIGTERM')

const count = (output: string, line: RegExp) =>
  output.split('\n').filter((l) => line.test(l)).length

test('finishes a running job on SIGTERM, or hands it back past the drain timeout', async () => {
  const db = await preparedDatabase([['jobs:dispatch', 't.slow', '{"n":1,"ms":1500}']])
  try {
    const first = startFw(['work'], db.url)
    await first.waitFor(/started t\.slow 1 attempt 1/)
    first.child.kill('SIGTERM')
    assert.is(await first.exited, 0, first.output())
    assert.match(first.output(), /ran t\.slow 1 attempt 1\n[^]*fw: stopped\./)
    // Nothing of the worker holds the stopped process open.
    assert.match(first.output(), /fw: stopped\.\nevent loop drained\n/)

    assert.is(
      (await runFw(['jobs:dispatch', 't.slow', '{"n":2,"ms":8000,"retryMs":0}'], db.url)).code,
      0,
    )
    const second = startFw(['work', '--drain-timeout', '1'], db.url)
    await second.waitFor(/started t\.slow 2 attempt 1/)
    second.child.kill('SIGTERM')
    assert.is(await second.exited, 0, second.output())
    assert.is(count(second.output(), /^ran t\.slow 2/), 0)
    assert.match(second.output(), /fw: stopped\.\nevent loop drained\n/)

    const third = startFw(['work'], db.url)
    await third.waitFor(/ran t\.slow 2 attempt 2/, 60_000)
    third.child.kill('SIGTERM')
    assert.is(await third.exited, 0)
    const listed = await runFw(['jobs:list', '--json', '--name', 't.slow'], db.url)
    const jobs = JSON.parse(listed.output) as Array<{ state: string; attempts: number }>
    assert.equal(
      jobs.map((j) => [j.state, j.attempts]),
      [
        ['completed', 2],
        ['completed', 1],
      ],
    )
    assert.is(count(first.output() + second.output() + third.output(), /^ran t\.slow/), 2)
  } finally {
    await db.drop()
  }
})

test.run()
