// The playground's telemetry switch: `FW_CONSOLE_TRACES=1` (config `playground.console_traces`)
// prints each request's trace with OpenTelemetry's console exporter; off, nothing is traced.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../../playground/app.js'

const test = suite('playground telemetry')

/** What `console.dir` printed while `body` ran (the SDK's console exporter prints each span so). */
async function printed(body: () => Promise<void>): Promise<unknown[]> {
  const seen: unknown[] = []
  const dir = console.dir
  console.dir = (value: unknown) => void seen.push(value)
  try {
    await body()
    await new Promise((resolve) => setTimeout(resolve, 20))
  } finally {
    console.dir = dir
  }
  return seen
}

test('FW_CONSOLE_TRACES=1 prints the trace of each request', async () => {
  const kernel = createApp({
    env: { DATABASE_URL: 'pglite://memory', FW_CONSOLE_TRACES: '1', NODE_ENV: 'production' },
    logger: createMemoryLogger(),
  })
  await kernel.boot()
  assert.is(kernel.config.playground.console_traces, true)
  assert.is(kernel.plugin('telemetry').tracing, true)
  const spans = (await printed(async () => void (await kernel.inject('/_demo/ping')))) as Array<{
    name?: string
    traceId?: string
    attributes?: Record<string, unknown>
  }>
  const server = spans.find((s) => s.name === 'GET /_demo/ping')
  assert.ok(server, JSON.stringify(spans.map((s) => s.name)))
  assert.is(server.attributes?.['http.route'], '/_demo/ping')
  assert.match(String(server.traceId), /^[0-9a-f]{32}$/)
  await kernel.close()
})

test('off by default: nothing traced, nothing printed', async () => {
  const kernel = createApp({
    env: { DATABASE_URL: 'pglite://memory', NODE_ENV: 'production' },
    logger: createMemoryLogger(),
  })
  await kernel.boot()
  assert.is(kernel.plugin('telemetry').tracing, false)
  const seen = await printed(async () => void (await kernel.inject('/_demo/ping')))
  assert.equal(seen, [])
  await kernel.close()
})

test('a wrong value of the switch fails naming the variable', () => {
  try {
    createApp({ env: { DATABASE_URL: 'pglite://memory', FW_CONSOLE_TRACES: 'maybe' } })
    assert.unreachable('should have thrown')
  } catch (error) {
    assert.match(String((error as Error).message), 'FW_CONSOLE_TRACES="maybe" is not a boolean')
  }
})

test.run()
