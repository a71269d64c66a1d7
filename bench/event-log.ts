// What recording the event log costs. Two measurements, each interleaved over several rounds
// (medians), all in this process:
//  1. A micro-benchmark of a request's recording: an EventLog created and the five events a plain
//     request records (`request.received`, two `phase.completed`, `route.matched`,
//     `response.prepared`), with the clock reads the kernel makes, against an empty loop and
//     against building the same event data without a log.
//  2. `kernel.inject('/ping')` and `kernel.handle()` (what the socket server calls) on a kernel
//     with nothing reading the log, as-is against the same kernel with `EventLog.prototype.record`
//     replaced by a no-op, and with `record` and `now` both no-ops (no log and no clock: the floor).
// Run: node --import tsx -C fw-source bench/event-log.ts
//      FW_BENCH_MS=<ms> changes the time per measurement (default 150; +50 for the kernel),
//      FW_BENCH_ROUNDS the rounds (default 9).
import { EventLog, type RequestInit } from 'fw'
import { createBenchKernel } from './lib/bench-kernel.js'
import { interleave } from './lib/measure.js'
import { formatInt, formatRatio } from './lib/stats.js'

const MS = Number(process.env.FW_BENCH_MS ?? 150)
const ROUNDS = Number(process.env.FW_BENCH_ROUNDS ?? 9)
const EVENTS = 5
/** `performance.now()` calls in {@link recordRequest}: see the comments there. */
const CLOCK_READS = 9
const EMPTY_PARAMS: Readonly<Record<string, string>> = Object.freeze({})

// Results go into a ring so that V8 cannot drop the work as dead code.
const ring: unknown[] = new Array(256).fill(undefined)

/** The recording of one plain request, as request-cycle.ts and route-chain.ts do it. */
function recordRequest(n: number): void {
  for (let i = 0; i < n; i++) {
    // Clock reads: the origin (1), routing start and end (2), action start and end (2), and the
    // default `at` of every record but the first (4): 9.
    const log = new EventLog()
    log.record('request.received', { method: 'GET', path: '/ping' }, 0)
    const routingStart = log.now()
    log.record('phase.completed', {
      name: 'routing',
      start: routingStart,
      duration: log.now() - routingStart,
    })
    log.record('route.matched', {
      method: 'GET',
      path: 'ping',
      name: undefined,
      handler: 'closure',
      params: EMPTY_PARAMS,
    })
    const actionStart = log.now()
    log.record('phase.completed', {
      name: 'action',
      start: actionStart,
      duration: log.now() - actionStart,
    })
    log.record('response.prepared', { status: 200 })
    ring[i & 255] = log
  }
}

/** The same event data, built and kept, with no log and no clock. */
function dataOnly(n: number): void {
  for (let i = 0; i < n; i++) {
    const j = (i * 5) & 255
    ring[j] = { method: 'GET', path: '/ping' }
    ring[j + 1] = { name: 'routing', start: i, duration: 0 }
    ring[j + 2] = {
      method: 'GET',
      path: 'ping',
      name: undefined,
      handler: 'closure',
      params: EMPTY_PARAMS,
    }
    ring[j + 3] = { name: 'action', start: i, duration: 0 }
    ring[(j + 4) & 255] = { status: 200 }
  }
}

/** The clock reads a request's recording makes (the log's origin, 4 by the kernel, 4 `at`s), alone. */
function clockOnly(n: number): void {
  for (let i = 0; i < n; i++) {
    let t = 0
    for (let k = 0; k < CLOCK_READS; k++) t += performance.now()
    ring[i & 255] = t
  }
}

/** The loop and the sink alone. */
function emptyLoop(n: number): void {
  for (let i = 0; i < n; i++) ring[i & 255] = i
}

/** The remainder once clock and data are taken out: often within the noise of the other two. */
function logItself(ns: number): string {
  return ns < 10 ? `≈ 0 ns (${ns.toFixed(0)}, within noise)` : `${ns.toFixed(0)} ns`
}

async function micro(): Promise<number> {
  const r = await interleave(
    {
      empty: { body: emptyLoop },
      data: { body: dataOnly },
      clock: { body: clockOnly },
      record: { body: recordRequest },
    },
    { rounds: ROUNDS, ms: MS },
  )
  const perRequest = r.record.median - r.empty.median
  const data = r.data.median - r.empty.median
  const clock = r.clock.median - r.empty.median
  console.log(
    `  micro: empty loop ${r.empty.median.toFixed(1)} ns, event data only ${r.data.median.toFixed(1)} ns, ` +
      `${CLOCK_READS} clock reads only ${r.clock.median.toFixed(1)} ns, log + ${EVENTS} records ${r.record.median.toFixed(1)} ns per request`,
  )
  console.log(
    `  micro: recording = ${perRequest.toFixed(0)} ns per request, ${(perRequest / EVENTS).toFixed(0)} ns/event; ` +
      `of which ${CLOCK_READS} performance.now() ${clock.toFixed(0)} ns (${(clock / CLOCK_READS).toFixed(0)} ns each), ` +
      `event data ${data.toFixed(0)} ns, the log itself ${logItself(perRequest - clock - data)}`,
  )
  return perRequest
}

async function kernelRates(): Promise<void> {
  // Nothing reads this kernel's log: no annotate tap, no middleware.
  const kernel = createBenchKernel({ stack: false })
  await kernel.boot()
  const probe = await kernel.inject('/ping')
  if (probe.status !== 200 || probe.body !== '{"hello":"world","n":1}')
    throw new Error(`GET /ping answered ${probe.status} ${probe.body}`)

  const proto = EventLog.prototype
  const original = { record: proto.record, now: proto.now }
  const recording = (): void => {
    proto.record = original.record
    proto.now = original.now
  }
  const noRecord = (): void => {
    proto.record = function record() {}
    proto.now = original.now
  }
  const noLog = (): void => {
    proto.record = function record() {}
    proto.now = function now() {
      return 0
    }
  }
  const init: RequestInit = {
    method: 'GET',
    url: '/ping',
    headers: { host: 'localhost' },
    body: undefined,
    secure: false,
    ip: '127.0.0.1',
  }
  const inject = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) ring[i & 255] = await kernel.inject('/ping')
  }
  const handle = async (n: number): Promise<void> => {
    for (let i = 0; i < n; i++) ring[i & 255] = await kernel.handle(init)
  }
  try {
    for (const [entry, body] of [
      ['inject()', inject],
      ['handle()', handle],
    ] as const) {
      const r = await interleave(
        {
          recording: { setup: recording, body },
          noRecord: { setup: noRecord, body },
          noLog: { setup: noLog, body },
        },
        { rounds: ROUNDS, ms: MS + 50, warmupMs: 40 },
      )
      const rate = (ns: number): string => `${formatInt(1e9 / ns)}/s`
      console.log(
        `  ${entry.padEnd(9)} as-is ${rate(r.recording.median)} (${(r.recording.median / 1000).toFixed(2)} µs), ` +
          `record() no-op ${rate(r.noRecord.median)}, record() and now() no-op ${rate(r.noLog.median)}`,
      )
      console.log(
        `  ${entry.padEnd(9)} as-is/no-op record = ${formatRatio(r.noRecord.median / r.recording.median)} ` +
          `(${formatInt(r.recording.median - r.noRecord.median)} ns/request), ` +
          `as-is/no log nor clock = ${formatRatio(r.noLog.median / r.recording.median)} (${formatInt(r.recording.median - r.noLog.median)} ns/request)`,
      )
    }
  } finally {
    recording()
  }
  await kernel.close()
}

console.log(`event-log: ${ROUNDS} interleaved rounds of ${MS} ms per variant, medians`)
const perRequest = await micro()
await kernelRates()
console.log(
  `event-log: recording costs ${perRequest.toFixed(0)} ns per request (${EVENTS} events, ${(perRequest / EVENTS).toFixed(0)} ns/event)`,
)
