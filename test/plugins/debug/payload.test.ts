import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { AnyEvent, RequestContext } from 'fw'
import { createTestKernel } from 'fw/testing'
import { PayloadProjections, type PayloadInput } from '../../../plugins/debug/payload.js'

const test = suite('debug: the payload and its registered projections')

function input(events: AnyEvent[] = []): PayloadInput {
  const kernel = createTestKernel()
  const ctx = { kernel } as unknown as RequestContext
  return { ctx, events, status: 200, id: 'abc', time: 1.234, memoryBytes: 0, body: undefined }
}

test('every key of the payload is there in order, empty when nothing fills it', () => {
  const payload = new PayloadProjections().build(input())
  assert.equal(payload, {
    time: null,
    memory: null,
    request: null,
    request_method: null,
    timing: {},
    queries: { count: 0, total_ms: 0, statements: [] },
    route: null,
    auth: null,
    session: null,
    logs: [],
    views: [],
    models: [],
    services: [],
    migrations: [],
    exceptions: [],
    devpanel: false,
  })
})

test('projections of one key run in registration order, each given what the key holds', () => {
  const p = new PayloadProjections()
  p.project('auth', (_i, previous) => ({ first: previous }))
  p.project('auth', (_i, previous) => ({ second: previous }))
  assert.equal(p.build(input()).auth, { second: { first: null } })
})

test('a projection reads events by type, rounds and masks through its input', () => {
  const p = new PayloadProjections()
  const events = [
    { type: 'view.rendered', at: 1, data: { template: 't', file: 'f', duration: 1.23456 } },
    { type: 'log.written', at: 2, data: { level: 'info', message: 'm', context: {} } },
  ] as unknown as AnyEvent[]
  p.project('views', (i) => i.of('view.rendered').map((e) => i.ms(e.data.duration)))
  p.project('session', (i) => i.redact({ password: 'hunter2', ok: 1 }))
  const out = p.build(input(events))
  assert.equal(out.views, [1.23])
  assert.equal(out.session, { password: '***', ok: 1 })
})

test('a key only a plugin knows comes after the known ones; a throwing projection is {error}', () => {
  const p = new PayloadProjections()
  p.project('cache', () => ({ hits: 2 }))
  p.project('views', () => {
    throw new Error('views broke')
  })
  const out = p.build(input())
  assert.equal(Object.keys(out).at(-1), 'cache')
  assert.equal(out.cache, { hits: 2 })
  assert.equal(out.views, { error: 'views broke' })
})

test.run()
