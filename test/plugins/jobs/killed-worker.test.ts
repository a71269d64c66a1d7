// A worker killed (SIGKILL) in the middle of a job loses nothing: once the job's timeout has
// passed, maintenance in another worker takes the attempt back and the job runs again. On
// PostgreSQL with DATABASE_URL, else on a PGlite directory (the next worker reopens it).
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { preparedDatabase, startFw } from './worker-process.js'

const test = suite('jobs killed worker')

test('retries the job of a killed worker after its timeout', async () => {
  const db = await preparedDatabase([['jobs:dispatch', 't.once', '{"n":1}']])
  try {
    const doomed = startFw(['work'], db.url)
    await doomed.waitFor(/ran t\.once 1 attempt 1/)
    const killedAt = Date.now()
    doomed.child.kill('SIGKILL')
    await doomed.exited
    const next = startFw(['work'], db.url)
    try {
      await next.waitFor(/ran t\.once 1 attempt 2/, 90_000)
      // t.once's timeout is 3 s: the attempt is not taken back before it has passed.
      assert.ok(Date.now() - killedAt >= 3000)
    } finally {
      next.child.kill('SIGTERM')
      assert.is(await next.exited, 0, next.output())
    }
  } finally {
    await db.drop()
  }
})

test.run()
