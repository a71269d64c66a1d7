import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable'
import { runBail, runEach, runIsolated, runSeries, runWaterfall } from '../../kernel/hook-runner.js'
import type { WaitingTap } from '../../kernel/hooks.js'

const test = suite('hook runner')

const isPromise = (value: unknown): boolean => value instanceof Promise

test('a bail hook answers synchronously while its taps do, with the first defined result', () => {
  const hook = new AsyncSeriesBailHook<[number], string | undefined>(['n'])
  const seen: string[] = []
  hook.tap('skip', () => void seen.push('skip'))
  hook.tap('answer', (n) => (seen.push('answer'), `got ${n}`))
  hook.tap('never', () => (seen.push('never'), 'late'))
  const result = runBail(hook, 7)
  assert.not.ok(isPromise(result), 'no promise when every tap is synchronous')
  assert.is(result, 'got 7')
  assert.equal(seen, ['skip', 'answer'])
})

test('a tap that returns a promise is awaited, and undefined from it means "go on"', async () => {
  // The kernel's per-request hooks are typed with WaitingTap: a `tap` may return a promise.
  const hook = new AsyncSeriesBailHook<[number], string | undefined>(['n']) as AsyncSeriesBailHook<
    [number],
    string | undefined
  > &
    WaitingTap<[number], string | undefined>
  const seen: string[] = []
  hook.tap('waits, no answer', () => Promise.resolve(undefined).then(() => void seen.push('a')))
  hook.tapPromise('promise', async (n) => (seen.push('b'), n > 1 ? 'big' : undefined))
  hook.tap('after', () => (seen.push('c'), 'small'))
  const big = runBail(hook, 2)
  assert.ok(isPromise(big))
  assert.is(await big, 'big')
  assert.equal(seen, ['a', 'b'])
  assert.is(await runBail(hook, 1), 'small')
})

test('tapAsync taps: a synchronous callback keeps the run synchronous, a later one does not', async () => {
  const hook = new AsyncSeriesWaterfallHook<[number]>(['n'])
  hook.tapAsync('now', (n, done) => done(null, n + 1))
  const now = runWaterfall(hook, 1)
  assert.is(now, 2)
  hook.tapAsync('later', (n, done) => setImmediate(() => done(null, n * 10)))
  const later = runWaterfall(hook, 1)
  assert.ok(isPromise(later))
  assert.is(await later, 20)
})

test('a waterfall passes each value on and keeps it when a tap returns undefined', async () => {
  const hook = new AsyncSeriesWaterfallHook<[string, string]>(['value', 'suffix'])
  hook.tap('a', (v, s) => `${v}${s}`)
  hook.tap('keep', () => undefined as unknown as string)
  hook.tapPromise('b', async (v) => `${v}!`)
  assert.is(await runWaterfall(hook, 'x', '-'), 'x-!')
})

test('failures: a throwing tap ends a series synchronously, a rejecting one rejects', async () => {
  const hook = new AsyncSeriesHook<[string[]]>(['log'])
  hook.tap('ok', (log) => void log.push('ok'))
  hook.tap('boom', () => {
    throw new Error('boom')
  })
  hook.tap('never', (log) => void log.push('never'))
  const log: string[] = []
  assert.throws(() => runSeries(hook, log), /boom/)
  assert.equal(log, ['ok'])
  const rejecting = new AsyncSeriesHook<[string[]]>(['log'])
  rejecting.tapPromise('no', async () => {
    throw new Error('no')
  })
  try {
    await runSeries(rejecting, [])
    assert.unreachable()
  } catch (error) {
    assert.is((error as Error).message, 'no')
  }
})

test('isolated: every tap runs, each failure is reported with its tap name', async () => {
  const hook = new AsyncSeriesHook<[string[]]>(['log'])
  hook.tap('first', (log) => void log.push('first'))
  hook.tap('throws', () => {
    throw new Error('sync failure')
  })
  hook.tapPromise('rejects', async () => {
    throw new Error('async failure')
  })
  hook.tapAsync('calls back with an error', (_log, done) => done(new Error('callback failure')))
  hook.tapPromise('last', async (log) => void log.push('last'))
  const log: string[] = []
  const failures: string[] = []
  await runIsolated(hook, (tap, error) => failures.push(`${tap}: ${(error as Error).message}`), log)
  assert.equal(log, ['first', 'last'])
  assert.equal(failures, [
    'throws: sync failure',
    'rejects: async failure',
    'calls back with an error: callback failure',
  ])
})

test('an each run answers its first argument, at once while its taps are synchronous', async () => {
  const hook = new AsyncSeriesHook<[string[]]>(['out'])
  const failures: string[] = []
  const onError = (tap: string): void => void failures.push(tap)
  hook.tap('first', (out) => void out.push('first'))
  hook.tap('throws', () => {
    throw new Error('sync failure')
  })
  const out: string[] = []
  const now = runEach(hook, onError, out)
  assert.not.ok(isPromise(now), 'no promise when every tap is synchronous')
  assert.is(now, out)
  hook.tapPromise('waits', async (list) => void list.push('waits'))
  hook.tapPromise('rejects', () => Promise.reject(new Error('async failure')))
  hook.tap('last', (list) => void list.push('last'))
  const later: string[] = []
  const waited = runEach(hook, onError, later)
  assert.ok(isPromise(waited))
  assert.is(await waited, later, 'the argument, not a failure, once the taps settled')
  assert.equal(later, ['first', 'waits', 'last'])
  assert.equal(failures, ['throws', 'throws', 'rejects'])
})

test("tapable's interceptors see call, tap, result, error and done", async () => {
  const events: string[] = []
  const interceptor = {
    call: (...args: unknown[]) => void events.push(`call ${args.join(',')}`),
    tap: (tap: { name: string }) => void events.push(`tap ${tap.name}`),
    result: (result: unknown) => void events.push(`result ${String(result)}`),
    error: (error: Error) => void events.push(`error ${error.message}`),
    done: () => void events.push('done'),
  }
  const bail = new AsyncSeriesBailHook<[number], string | undefined>(['n'])
  bail.intercept(interceptor)
  bail.tap('none', () => undefined)
  bail.tapPromise('big', async (n) => (n > 1 ? 'big' : undefined))
  await runBail(bail, 2)
  assert.equal(events, ['call 2', 'tap none', 'tap big', 'result big'])
  events.length = 0
  await runBail(bail, 1)
  assert.equal(events, ['call 1', 'tap none', 'tap big', 'done'])

  events.length = 0
  const waterfall = new AsyncSeriesWaterfallHook<[number]>(['n'])
  waterfall.intercept(interceptor)
  waterfall.tap('double', (n) => n * 2)
  assert.is(runWaterfall(waterfall, 3), 6)
  assert.equal(events, ['call 3', 'tap double', 'result 6'])

  events.length = 0
  const series = new AsyncSeriesHook<[number]>(['n'])
  series.intercept(interceptor)
  series.tap('fails', () => {
    throw new Error('kaput')
  })
  assert.throws(() => runSeries(series, 1), /kaput/)
  assert.equal(events, ['call 1', 'tap fails', 'error kaput'])
})

test('register interceptors apply, because tapable runs them when a tap is added', () => {
  const hook = new AsyncSeriesBailHook<[number], number | undefined>(['n'])
  hook.intercept({
    register: (tap) => ({ ...tap, fn: (n: number) => n * 100 }),
  })
  hook.tap('replaced', () => 1)
  assert.is(runBail(hook, 3), 300)
})

test.run()
