// The debug payload of a request lists the jobs it dispatched, each with the URL of its runs; an
// annotated request reads a run's event log there (its statements included), an unannotated one
// gets a 404.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import database, { createTestDatabase } from 'fw/plugins/database'
import debug from 'fw/plugins/debug'
import jobs, { defineJob } from 'fw/plugins/jobs'
import { createTestKernel } from 'fw/testing'
import { eventually } from './fixtures.js'

const test = suite('jobs debug view')

const greet = defineJob('debug.greet', {
  handler: async ({ name }: { name: string }, run) => {
    await run.context.kernel.plugin('database').sql`select ${name}::text as name`
  },
})

function kernelFor(url: string, development: boolean) {
  const kernel = createTestKernel({
    config: {
      app: { name: 'dbg', key: 'test-app-key-0123456789abcdef0123456789' },
      development,
      features: development ? ['debug'] : [],
      jobs: { poll_interval: 1 },
    },
    plugins: [[database, { url, entities: [] }], [debug], [jobs, { jobs: [greet] }]],
  })
  kernel.router.post('greet', async () => {
    const id = await kernel.plugin('jobs').dispatch(greet, { name: 'ann' })
    return { id }
  })
  return kernel
}

test("lists a request's jobs in its payload and serves their runs' logs", async () => {
  const db = await createTestDatabase()
  const kernel = kernelFor(db.url, true)
  try {
    await kernel.boot()
    await kernel.plugin('database').prepare()
    await kernel.plugin('jobs').work()
    const res = await kernel.inject({
      method: 'POST',
      url: '/greet',
      headers: { accept: 'application/json' },
    })
    assert.is(res.status, 200, res.body)
    const body = res.json() as { id: string; _debug: { jobs: Array<Record<string, unknown>> } }
    const [listed] = body._debug.jobs
    assert.equal(
      { name: listed!.name, id: listed!.id, runs: listed!.runs },
      { name: 'debug.greet', id: body.id, runs: `/_fw/jobs/${body.id}/runs` },
    )
    let runs: Array<{
      status: string
      events: Array<{ type: string; data: { params?: unknown } }>
    }> = []
    await eventually('the run', async () => {
      const read = await kernel.inject({
        method: 'GET',
        url: `/_fw/jobs/${body.id}/runs`,
        headers: { accept: 'application/json' },
      })
      assert.is(read.status, 200, read.body)
      runs = read.json() as typeof runs
      return runs.length === 1
    })
    assert.is(runs[0]!.status, 'completed')
    const types = runs[0]!.events.map((e) => e.type)
    assert.equal(types, ['job.started', 'query.executed', 'job.completed'])
  } finally {
    await kernel.close()
    await db.drop()
  }
})

test('answers 404 for the runs to a request that is not annotated', async () => {
  const db = await createTestDatabase()
  const kernel = kernelFor(db.url, false)
  try {
    await kernel.boot()
    const res = await kernel.inject('/_fw/jobs/6f1c2a4e-0000-4000-8000-000000000000/runs')
    assert.is(res.status, 404)
  } finally {
    await kernel.close()
    await db.drop()
  }
})

test.run()
