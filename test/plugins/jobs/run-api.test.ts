// What a handler reaches through its run: the app's logger writes `log.written` into the run's own
// event log, `run.progress()` is readable with `find(id)` while the job runs, and a `unique` job
// dispatched twice with one key while the first waits is enqueued once.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { FwEvent } from 'fw'
import database, { createTestDatabase } from 'fw/plugins/database'
import jobs, { defineJob, jobsInternals, type FinishedRun } from 'fw/plugins/jobs'
import logging from 'fw/plugins/logging'
import { createTestKernel } from 'fw/testing'
import { eventually, jobsKernel, withJobs } from './fixtures.js'

const test = suite('jobs run api')

test('a line the app logs inside a run is a log.written event of that run', async () => {
  const lines: string[] = []
  const greet = defineJob('run.greet', {
    handler: (payload: { to: string }, run) => {
      run.context.kernel.logger.info('greeting sent', { to: payload.to })
    },
  })
  const db = await createTestDatabase()
  const kernel = createTestKernel({
    plugins: [
      [logging, { destination: { write: (line: string) => void lines.push(line) } }],
      [database, { url: db.url, entities: [] }],
      [jobs, { jobs: [greet] }],
    ],
    config: { jobs: { poll_interval: 1 } },
  })
  const runs: FinishedRun[] = []
  try {
    await kernel.boot()
    await kernel.plugin('database').prepare()
    const api = kernel.plugin('jobs')
    jobsInternals.get(api)!.observers.push((run) => runs.push(run))
    await api.work()
    await api.dispatch(greet, { to: 'ada' })
    await eventually('the run', () => runs.length === 1)
    const types = runs[0]!.context.log.all().map((e) => e.type)
    assert.equal(types, ['job.started', 'log.written', 'job.completed'])
    const written = runs[0]!.context.log.ofType('log.written')[0] as FwEvent<'log.written'>
    assert.equal([written.data.level, written.data.message], ['info', 'greeting sent'])
    assert.equal(written.data.context, { to: 'ada' })
    assert.ok(
      lines.some((line) => line.includes('greeting sent')),
      'the line is written too',
    )
  } finally {
    await kernel.close()
    await db.drop()
  }
})

test('run.progress() is readable with find(id) while the job runs, and gone once it completed', async () => {
  let proceed: () => void = () => undefined
  const gate = new Promise<void>((resolve) => (proceed = resolve))
  const importing = defineJob('run.import', {
    handler: async (_payload: object, run) => {
      await run.progress(40, 100)
      await gate
    },
  })
  const h = await jobsKernel([importing])
  try {
    const api = h.kernel.plugin('jobs')
    await api.work()
    const id = (await api.dispatch(importing, {}))!
    await eventually('the progress', async () => (await api.find(id))?.progress?.done === 40)
    const running = await api.find(id)
    assert.equal([running!.state, running!.progress], ['active', { done: 40, total: 100 }])
    proceed()
    await eventually('completion', async () => (await api.find(id))?.state === 'completed')
    assert.is((await api.find(id))!.progress, null)
  } finally {
    proceed()
    await h.close()
  }
})

test('a unique job with a waiting one of the same key is not enqueued again', async () => {
  const ran: string[] = []
  const reindex = defineJob('run.reindex', {
    unique: true,
    handler: (payload: { shop: string }) => void ran.push(payload.shop),
  })
  await withJobs([reindex], async (api) => {
    const first = await api.dispatch(reindex, { shop: 'a' }, { key: 'shop-a' })
    assert.type(first, 'string')
    assert.is(await api.dispatch(reindex, { shop: 'a' }, { key: 'shop-a' }), null)
    const other = await api.dispatch(reindex, { shop: 'b' }, { key: 'shop-b' })
    assert.type(other, 'string')
    assert.is.not(other, first)
    const waiting = await api.list({ name: 'run.reindex' })
    assert.equal(waiting.map((j) => j.id).sort(), [first, other].sort())
    await api.work()
    await eventually('both runs', () => ran.length === 2)
    await eventually('completion', async () => (await api.find(first!))?.state === 'completed')
    // Once the first completed, its key is free again.
    const again = await api.dispatch(reindex, { shop: 'a' }, { key: 'shop-a' })
    assert.type(again, 'string')
    await eventually('the third run', () => ran.length === 3)
    assert.equal(ran.sort(), ['a', 'a', 'b'])
  })
})

test.run()
