// Jobs in the telemetry plugin's output: a run's spans continue the trace of the request that
// dispatched it (a CONSUMER span, child of the request's server span, with the run's statements
// under it), on both ways of tracing; and `/metrics` shows per queue the jobs waiting, running and
// failed, and each run's duration by outcome.
import { SpanKind } from '@opentelemetry/api'
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace-base'
import parsePrometheus from 'parse-prometheus-text-format'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import database, { createTestDatabase } from 'fw/plugins/database'
import jobs, { defineJob, jobsInternals, type FinishedRun } from 'fw/plugins/jobs'
import telemetry, { type TelemetryOptions } from 'fw/plugins/telemetry'
import { createTestKernel } from 'fw/testing'
import { eventually } from './fixtures.js'

const test = suite('jobs telemetry')

const mail = defineJob('tel.mail', {
  retries: 0,
  handler: async (payload: { to: string }, run) => {
    await run.context.kernel.plugin('database').sql`select ${payload.to}::text as recipient`
    if (payload.to === 'nobody') throw new Error('no such mailbox')
  },
})
const later = defineJob('tel.later', { handler: () => undefined })

/** A kernel with telemetry (`options`, `metrics` config) and the two jobs; `/order` dispatches. */
async function app(options: TelemetryOptions, config: Record<string, unknown> = {}) {
  const db = await createTestDatabase()
  const kernel = createTestKernel({
    plugins: [
      [database, { url: db.url, entities: [] }],
      [telemetry, options],
      [jobs, { jobs: [mail, later] }],
    ],
    config: { jobs: { poll_interval: 1 }, ...config },
  })
  kernel.router.get('order', async (ctx) => ({
    id: await ctx.kernel.plugin('jobs').dispatch(mail, { to: ctx.query.to as string }),
  }))
  await kernel.boot()
  await kernel.plugin('database').prepare()
  const runs: FinishedRun[] = []
  jobsInternals.get(kernel.plugin('jobs'))!.observers.push((run) => runs.push(run))
  return {
    kernel,
    runs,
    async close() {
      await kernel.close()
      await db.drop()
    },
  }
}

/** Checks that the job's spans hang under the request's: the run's span, its statement under it. */
function assertContinued(spans: readonly ReadableSpan[]) {
  const server = spans.find((s) => s.kind === SpanKind.SERVER && s.name === 'GET /order')
  const job = spans.find((s) => s.name === 'process tel.mail')
  assert.ok(server, spans.map((s) => s.name).join(', '))
  assert.ok(job, spans.map((s) => s.name).join(', '))
  assert.is(job.kind, SpanKind.CONSUMER)
  assert.is(job.spanContext().traceId, server.spanContext().traceId, 'one trace')
  assert.is(job.parentSpanContext?.spanId, server.spanContext().spanId, "the request's child")
  assert.is(job.attributes['messaging.destination.name'], 'tel.mail')
  assert.is(job.attributes['fw.job.attempt'], 1)
  assert.is(job.attributes['http.response.status_code'], undefined)
  const statement = spans.find(
    (s) =>
      s.kind === SpanKind.CLIENT &&
      s.parentSpanContext?.spanId === job.spanContext().spanId &&
      String(s.attributes['db.query.text']).includes('recipient'),
  )
  assert.ok(statement, "the run's statement is a child of the run's span")
}

test("the exporter path: a run's spans continue the dispatching request's trace", async () => {
  const exporter = new InMemorySpanExporter()
  const h = await app({ exporter, batch: { scheduledDelayMillis: 1 } })
  try {
    assert.is((await h.kernel.inject('/order?to=ada')).status, 200)
    await h.kernel.plugin('jobs').work()
    await eventually('the run', () => h.runs.length === 1)
    await h.kernel.plugin('telemetry').flush()
    assertContinued(exporter.getFinishedSpans())
  } finally {
    await h.close()
  }
})

test('the SDK path: the same spans, and a failed run marked with its exception', async () => {
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  const h = await app({ tracerProvider: provider })
  try {
    await h.kernel.inject('/order?to=ada')
    await h.kernel.inject('/order?to=nobody')
    await h.kernel.plugin('jobs').work()
    await eventually('both runs', () => h.runs.length === 2)
    await h.kernel.plugin('telemetry').flush()
    const spans = exporter.getFinishedSpans()
    const [ok, failed] = ['ada', 'nobody'].map((to) => {
      const run = h.runs.find((r) => (r.envelope.payload as { to: string }).to === to)!
      return spans.find((s) => s.attributes['messaging.message.id'] === run.id)!
    })
    assert.is(ok!.status.code, 0, 'unset')
    assert.is(failed!.status.code, 2, 'error')
    assert.equal(
      failed!.events.map((e) => [e.name, e.attributes?.['exception.message']]),
      [['exception', 'no such mailbox']],
    )
    assertContinued(spans.filter((s) => s.spanContext().traceId === ok!.spanContext().traceId))
  } finally {
    await h.close()
  }
})

test('/metrics shows per queue the jobs waiting, running and failed, and run durations', async () => {
  const token = 'scrape-token-0123456789'
  const h = await app({}, { telemetry: { metrics: true, metrics_token: token } })
  try {
    const api = h.kernel.plugin('jobs')
    await api.dispatch(later, {})
    await api.dispatch(later, {})
    await h.kernel.inject('/order?to=nobody')
    await h.kernel.inject('/order?to=ada')
    await api.work({ queues: ['tel.mail'] })
    await eventually('both runs', () => h.runs.length === 2)
    await eventually('the failed job', async () => (await api.failed()).length === 1)
    const scrape = () =>
      h.kernel.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } })
    // A run's observers hear of it before the queue has recorded its completion: the scrape is
    // read once no job of `tel.mail` is still counted as running.
    await eventually('the completed job', async () =>
      (await scrape()).body.includes('jobs_running{queue="tel.mail"} 0'),
    )
    const res = await scrape()
    assert.is(res.status, 200)
    const families = new Map(parsePrometheus(res.body).map((f) => [f.name, f]))
    const gauge = (name: string) =>
      Object.fromEntries(families.get(name)!.metrics.map((m) => [m.labels!.queue, Number(m.value)]))
    assert.equal(gauge('jobs_waiting'), { 'tel.later': 2, 'tel.mail': 0 })
    assert.equal(gauge('jobs_running'), { 'tel.later': 0, 'tel.mail': 0 })
    assert.equal(gauge('jobs_failed'), { 'tel.later': 0, 'tel.mail': 1 })
    assert.is(families.get('job_run_duration_seconds')!.type, 'HISTOGRAM')
    // The parser folds a labelled histogram's series into one: each series' `_count` is read
    // untyped, with its labels.
    const untyped = parsePrometheus(res.body.replace(/^# TYPE \S+ histogram$/gm, ''))
    const counts = Object.fromEntries(
      untyped
        .filter((f) => f.name === 'job_run_duration_seconds_count')
        .flatMap((f) => f.metrics)
        .map((m) => [`${m.labels!.queue} ${m.labels!.status}`, Number(m.value)]),
    )
    assert.equal(counts, { 'tel.mail completed': 1, 'tel.mail failed': 1 })
  } finally {
    await h.close()
  }
})

test.run()
