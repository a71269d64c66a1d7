// The playground's telemetry switch: `FW_CONSOLE_TRACES=1` (config `playground.console_traces`)
// prints each request's trace with OpenTelemetry's console exporter (fw's span records, batched a
// tenth of a second); off, nothing is traced.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../../playground/app.js'

const test = suite('playground telemetry')

/**
 * What `console.dir` printed while `body` ran and until `done` says it is complete (at most 5 s;
 * the SDK's console exporter prints each span so).
 */
async function printed(
  body: () => Promise<void>,
  done: (seen: unknown[]) => boolean,
): Promise<unknown[]> {
  const seen: unknown[] = []
  const dir = console.dir
  console.dir = (value: unknown) => void seen.push(value)
  try {
    await body()
    // The batch's delay: no flush asked for, as a developer watching the console.
    for (let waited = 0; waited < 5000 && !done(seen); waited += 50)
      await new Promise((resolve) => setTimeout(resolve, 50))
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
  const spans = (await printed(
    async () => void (await kernel.inject('/_demo/ping')),
    (seen) => seen.some((s) => (s as { name?: string }).name === 'GET /_demo/ping'),
  )) as Array<{
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
  // Given half a second (five times the batch's delay) to print something it should not.
  let waited = 0
  const seen = await printed(
    async () => void (await kernel.inject('/_demo/ping')),
    () => (waited += 50) > 500,
  )
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
