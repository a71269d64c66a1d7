/**
 * The one place where the kernel runs hooks: every kind (series, bail, waterfall, and series with
 * each tap isolated from the others), every tap type (`tap`, `tapAsync`, `tapPromise`), with
 * tapable's interceptors honoured (`call`, `tap`, `result`, `error`, `done`; `register` already
 * ran when the tap was added). The kernel never calls a hook's own `promise()`.
 *
 * It runs synchronously for as long as the taps answer synchronously: a `tap` returning a value, a
 * `tapAsync` calling back before it returns. Only a promise (from any tap type) makes the rest of
 * the run asynchronous, and only then is the result a promise. A request whose taps and handler are
 * synchronous therefore creates no promise at all: it costs neither the promise nor, on Node 20,
 * the async-hooks bookkeeping that the request scope's AsyncLocalStorage adds to every promise.
 *
 * One rule for every tap type: a tap may return its value or a promise of it, and `undefined`
 * (once settled) means "no answer" (bail: ask the next tap; waterfall: keep the value).
 */

import type { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable'

/** A value now, or a promise of it. */
export type MaybePromise<T> = T | Promise<T>

/** A tap as tapable stores it. */
interface StoredTap {
  readonly name: string
  readonly type: 'sync' | 'async' | 'promise'
  // tapable types it as `Function`: its arity depends on the hook.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  readonly fn: Function
}

/** The part of a tapable interceptor the runner honours. */
interface Interceptor {
  call?: (...args: unknown[]) => void
  tap?: (tap: StoredTap) => void
  result?: (result: unknown) => void
  error?: (error: unknown) => void
  done?: () => void
}

/** What the runner reads of a tapable hook (any `AsyncSeries*Hook` has it). */
interface RunnableHook {
  readonly taps: readonly StoredTap[]
  readonly interceptors: readonly Interceptor[]
}

/** True for a promise or any thenable a tap returned. */
export function isThenable<T>(value: MaybePromise<T>): value is Promise<T> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  )
}

/**
 * Runs `fn` and hands what it throws or rejects with to `recover`: synchronous while `fn` is.
 */
function attempt<T>(
  fn: () => MaybePromise<T>,
  recover: (error: unknown) => MaybePromise<T>,
): MaybePromise<T> {
  let value: MaybePromise<T>
  try {
    value = fn()
  } catch (error) {
    return recover(error)
  }
  return isThenable(value) ? value.then(undefined, recover) : value
}

/** Calls one tap; a `tapAsync` tap that calls back synchronously answers synchronously. */
function invoke(tap: StoredTap, args: readonly unknown[]): unknown {
  if (tap.type !== 'async') {
    return args.length === 1
      ? tap.fn(args[0])
      : args.length === 2
        ? tap.fn(args[0], args[1])
        : tap.fn(...args)
  }
  let settled = false
  let failure: unknown
  let result: unknown
  let resolve: ((v: unknown) => void) | undefined
  let reject: ((e: unknown) => void) | undefined
  tap.fn(...args, (error: unknown, value: unknown) => {
    if (resolve !== undefined) return error ? reject!(error) : resolve(value)
    settled = true
    failure = error
    result = value
  })
  if (settled) {
    if (failure) throw failure
    return result
  }
  return new Promise((res, rej) => {
    resolve = res
    reject = rej
  })
}

/** `each`: isolated like `isolated`, answering its first argument instead of the first failure. */
type Kind = 'series' | 'bail' | 'waterfall' | 'isolated' | 'each'

/** Told about each failing tap of an isolated run, with the run's arguments. */
type OnTapError = (tapName: string, error: unknown, args: readonly unknown[]) => void

const CONTINUE = Symbol('continue')

/**
 * The run loop shared by every kind: from tap `i` on, synchronously until a tap returns a
 * promise, then the rest after it settles. A waterfall keeps its value in `args[0]`; an isolated
 * run (and `each`) reports each failure to `onTapError` and ends with the first one (`failed`).
 */
function loop(
  hook: RunnableHook,
  kind: Kind,
  args: unknown[],
  i: number,
  onTapError: OnTapError | undefined,
  failed: { error: unknown } | undefined,
): MaybePromise<unknown> {
  const { taps, interceptors } = hook
  const intercepted = interceptors.length > 0
  const isolated = kind === 'isolated' || kind === 'each'
  for (; i < taps.length; i++) {
    const tap = taps[i]!
    if (intercepted) for (const interceptor of interceptors) interceptor.tap?.(tap)
    let result: unknown
    try {
      result = invoke(tap, args)
    } catch (error) {
      if (!isolated) throw error
      failed ??= { error }
      report(hook, tap, error, args, onTapError!)
      continue
    }
    if (isThenable(result)) {
      const next = i + 1
      return result.then(
        (settled) => {
          const answer = settle(kind, args, settled, interceptors)
          return answer === CONTINUE ? loop(hook, kind, args, next, onTapError, failed) : answer
        },
        (error: unknown) => {
          if (!isolated) throw error
          report(hook, tap, error, args, onTapError!)
          return loop(hook, kind, args, next, onTapError, failed ?? { error })
        },
      )
    }
    const answer = settle(kind, args, result, interceptors)
    if (answer !== CONTINUE) return answer
  }
  if (kind === 'waterfall') {
    if (intercepted) for (const interceptor of interceptors) interceptor.result?.(args[0])
    return args[0]
  }
  if (intercepted) for (const interceptor of interceptors) interceptor.done?.()
  return kind === 'each' ? args[0] : failed?.error
}

function report(
  hook: RunnableHook,
  tap: StoredTap,
  error: unknown,
  args: readonly unknown[],
  onTapError: OnTapError,
): void {
  for (const interceptor of hook.interceptors) interceptor.error?.(error)
  onTapError(tap.name, error, args)
}

/** What a tap's settled result means for the run: its answer (bail), or go on. */
function settle(
  kind: Kind,
  args: unknown[],
  result: unknown,
  interceptors: readonly Interceptor[],
): unknown {
  if (result === undefined || kind === 'series' || kind === 'isolated' || kind === 'each')
    return CONTINUE
  if (kind === 'waterfall') {
    args[0] = result
    return CONTINUE
  }
  for (const interceptor of interceptors) interceptor.result?.(result)
  return result
}

function start(
  hook: RunnableHook,
  kind: Kind,
  args: unknown[],
  onTapError?: OnTapError,
): MaybePromise<unknown> {
  const interceptors = hook.interceptors
  if (interceptors.length === 0) return loop(hook, kind, args, 0, onTapError, undefined)
  for (const interceptor of interceptors) interceptor.call?.(...args)
  // The `error` interceptors see a failure that ends the run (an isolated tap's is reported).
  return attempt(
    () => loop(hook, kind, args, 0, onTapError, undefined),
    (error) => {
      for (const interceptor of interceptors) interceptor.error?.(error)
      throw error
    },
  )
}

/** A hook's taps in order, each one awaited (`boot`, `listen`). The first failure ends it. */
export function runSeries<T extends unknown[]>(
  hook: AsyncSeriesHook<T>,
  ...args: T
): MaybePromise<void> {
  return start(hook as unknown as RunnableHook, 'series', args) as MaybePromise<void>
}

/**
 * A bail hook (`request`, `route`, `authenticate`, `error`): the first tap whose result is not
 * `undefined` answers, and the later taps do not run.
 */
export function runBail<T extends unknown[], R>(
  hook: AsyncSeriesBailHook<T, R>,
  ...args: T
): MaybePromise<R | undefined> {
  return start(hook as unknown as RunnableHook, 'bail', args) as MaybePromise<R | undefined>
}

/**
 * A waterfall hook (`render`): each tap gets the value the previous one returned (`undefined`
 * keeps it); the last value is the result.
 */
export function runWaterfall<T extends unknown[]>(
  hook: AsyncSeriesWaterfallHook<T>,
  ...args: T
): MaybePromise<T[0]> {
  return start(hook as unknown as RunnableHook, 'waterfall', args) as MaybePromise<T[0]>
}

/**
 * Every tap of a series hook, each isolated (`annotate`, `shutdown`): a tap that throws or rejects
 * is handed to `onTapError` (with the run's arguments) and the others still run. Never throws
 * because of a tap; the result is the first failure, or undefined.
 */
export function runIsolated<T extends unknown[]>(
  hook: AsyncSeriesHook<T>,
  onTapError: (tapName: string, error: unknown, args: T) => void,
  ...args: T
): MaybePromise<unknown> {
  return start(hook as unknown as RunnableHook, 'isolated', args, onTapError as OnTapError)
}

/**
 * Every tap of a series hook, each isolated, for what they do to the first argument (`annotate`,
 * on the reply): as {@link runIsolated}, but the result is that argument, now or once the last tap
 * settled, so a caller that waits for the taps needs no promise of its own to get it back.
 */
export function runEach<T extends unknown[]>(
  hook: AsyncSeriesHook<T>,
  onTapError: (tapName: string, error: unknown, args: T) => void,
  ...args: T
): MaybePromise<T[0]> {
  return start(
    hook as unknown as RunnableHook,
    'each',
    args,
    onTapError as OnTapError,
  ) as MaybePromise<T[0]>
}
