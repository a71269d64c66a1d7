// A job dispatched inside a transaction is enqueued with it: it runs exactly once when the
// transaction commits and never when it rolls back, on PGlite and (DATABASE_URL) PostgreSQL.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { defineJob } from 'fw/plugins/jobs'
import { eventually, sleep, withJobs } from './fixtures.js'

const test = suite('jobs transactions')

/** A job named `name` whose runs record their payload's `n` in `seen`, in the order they ran. */
function recordingJob(name: string) {
  const seen: number[] = []
  const record = defineJob(name, {
    handler: ({ n }: { n: number }) => {
      seen.push(n)
    },
  })
  return { record, seen }
}

test('runs a job dispatched in a committed transaction once, and one rolled back never', async () => {
  const { record, seen } = recordingJob('tx.record')
  await withJobs([record], async (jobs, h) => {
    const em = h.kernel.plugin('database').em()
    await jobs.work()
    await em.transactional(async () => {
      await jobs.dispatch(record, { n: 1 })
    })
    await em
      .transactional(async () => {
        await jobs.dispatch(record, { n: 2 })
        throw new Error('roll back')
      })
      .catch(() => undefined)
    // Explicitly given: the EntityManager's transaction.
    const fork = h.kernel.plugin('database').em()
    await fork.begin()
    await jobs.dispatch(record, { n: 3 }, { em: fork })
    await fork.rollback()
    await eventually('the committed job', () => seen.includes(1))
    await sleep(2500)
    assert.equal(seen, [1])
    const listed = await jobs.list({ name: 'tx.record' })
    assert.equal(
      listed.map((j) => j.state),
      ['completed'],
    )
  })
})

test('the first dispatch of a process, inside a transaction, commits or rolls back with it', async () => {
  // No worker and no earlier use: on PGlite the queue's client would open on the one connection
  // the transaction holds (plugins/jobs/jobs-runtime.ts opens one on the transaction instead).
  const { record, seen } = recordingJob('tx.first')
  await withJobs([record], async (jobs, h) => {
    const em = h.kernel.plugin('database').em()
    await em
      .transactional(async () => {
        await jobs.dispatch(record, { n: 1 })
        throw new Error('roll back')
      })
      .catch((error: Error) => assert.is(error.message, 'roll back'))
    const id = await em.transactional(() => jobs.dispatch(record, { n: 2 }))
    assert.type(id, 'string')
    await jobs.work()
    await eventually('the committed job', () => seen.includes(2))
    assert.equal(seen, [2])
    assert.equal(
      (await jobs.list({ name: 'tx.first' })).map((j) => j.state),
      ['completed'],
    )
  })
})

test('refuses a payload that is not JSON and a job that is not defined, with their codes', async () => {
  const known = defineJob('tx.known', { handler: () => undefined })
  await withJobs([known], async (jobs) => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    await jobs.dispatch(known, cyclic as never).then(
      () => assert.unreachable('dispatched'),
      (e: { code?: string }) => assert.is(e.code, 'FW_ERR_JOBS_DISPATCH_INVALID'),
    )
    await jobs.dispatch(known, {} as never, { delay: -1 }).then(
      () => assert.unreachable('dispatched'),
      (e: { code?: string }) => assert.is(e.code, 'FW_ERR_JOBS_DISPATCH_INVALID'),
    )
    await jobs.dispatch('nope' as never, {} as never).then(
      () => assert.unreachable('dispatched'),
      (e: { code?: string }) => assert.is(e.code, 'FW_ERR_JOBS_UNKNOWN'),
    )
    assert.equal(await jobs.list(), [])
  })
})

test.run()
