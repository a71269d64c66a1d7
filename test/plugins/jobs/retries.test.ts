// A failing job is retried with its backoff, then kept as failed with its error and attempts;
// `retry(id)` gives it one more attempt. Each attempt's run is an event log of its own.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { FwEvent } from 'fw'
import { defineJob, jobsInternals, type FinishedRun } from 'fw/plugins/jobs'
import { eventually, withJobs } from './fixtures.js'

const test = suite('jobs retries')

test('retries with exponential backoff, then keeps the job as failed; retry(id) runs it again', async () => {
  const attempts: number[] = []
  const flaky = defineJob('retry.flaky', {
    retries: 2,
    backoff: { delay: 1, exponential: true },
    handler: async (_payload: { order: number }) => {
      attempts.push(Date.now())
      throw Object.assign(new Error('the mail server said no'), { code: 'E_MAIL' })
    },
  })
  const runs: FinishedRun[] = []
  await withJobs([flaky], async (jobs) => {
    jobsInternals.get(jobs)!.observers.push((run) => runs.push(run))
    await jobs.work()
    const id = await jobs.dispatch(flaky, { order: 7 })
    assert.type(id, 'string')
    await eventually('three attempts', () => runs.length === 3, 30_000)
    // pg-boss's backoff: delay × 2^(n−1) seconds, doubled at most by jitter, before attempt n+1.
    assert.ok(attempts[1]! - attempts[0]! >= 1000, `first wait ${attempts[1]! - attempts[0]!} ms`)
    assert.ok(attempts[2]! - attempts[1]! >= 2000, `second wait ${attempts[2]! - attempts[1]!} ms`)
    assert.equal(
      runs.map((r) => [r.attempt, r.status]),
      [
        [1, 'retrying'],
        [2, 'retrying'],
        [3, 'failed'],
      ],
    )
    const types = runs[2]!.context.log.all().map((e) => e.type)
    assert.equal(types, ['job.started', 'exception.raised', 'job.completed'])
    const raised = runs[2]!.context.log.ofType('exception.raised')[0] as FwEvent<'exception.raised'>
    assert.equal(raised.data.code, 'E_MAIL')
    await eventually('the failed state', async () => (await jobs.failed()).length === 1)
    const [failed] = await jobs.failed()
    assert.equal(
      {
        id: failed!.id,
        attempts: failed!.attempts,
        error: failed!.error,
        payload: failed!.payload,
      },
      { id, attempts: 3, error: 'the mail server said no', payload: { order: 7 } },
    )
    assert.is(await jobs.retry(id!), true)
    assert.is(await jobs.retry(id!), false, 'a job that is not failed is not retried')
    assert.is(await jobs.retry('not-a-uuid'), false)
    await eventually('the fourth attempt', () => runs.length === 4, 15_000)
    assert.equal([runs[3]!.attempt, runs[3]!.status], [4, 'failed'])
  })
})

test('gives up an attempt at its timeout: it fails with the timeout as its error', async () => {
  const stuck = defineJob('retry.stuck', {
    retries: 0,
    timeout: 1,
    handler: (_payload: object, run) =>
      new Promise<void>((resolve) => run.signal.addEventListener('abort', () => resolve())),
  })
  await withJobs([stuck], async (jobs) => {
    await jobs.work()
    await jobs.dispatch(stuck, {})
    await eventually('the failed job', async () => (await jobs.failed()).length === 1, 15_000)
    assert.match((await jobs.failed())[0]!.error, 'timed out after 1 s')
  })
})

test.run()
