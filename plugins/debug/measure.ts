// The Domain tab's services: `recordService(name)` records a construction, `measure(name, fn)` a
// call's duration. Both record into the current request's event log (found through the request
// scope, or the `ctx` given) and do nothing outside a request.
import { currentContext, type RequestContext } from 'fw'
import './events.js'

function contextOf(ctx: RequestContext | undefined): RequestContext | undefined {
  return ctx ?? currentContext()
}

/**
 * Runs `fn`, records `service.measured` (`{name, start, duration, failed}`) in the current
 * request's log, and returns exactly what `fn` returned (the same promise, for an async `fn`) or
 * rethrows what it threw.
 *
 * @example
 * const rates = await measure('ExchangeRates.fetch', () => rates.fetch('EUR'))
 */
export function measure<R>(name: string, fn: () => R, ctx?: RequestContext): R {
  const target = contextOf(ctx)
  if (target === undefined) return fn()
  const log = target.log
  const start = log.now()
  const done = (failed: boolean) => {
    const end = log.now()
    log.record('service.measured', { name, start, duration: end - start, failed }, end)
  }
  let result: R
  try {
    result = fn()
  } catch (error) {
    done(true)
    throw error
  }
  if (result !== null && typeof (result as { then?: unknown })?.then === 'function') {
    ;(result as PromiseLike<unknown>).then(
      () => done(false),
      () => done(true),
    )
    return result
  }
  done(false)
  return result
}

/**
 * Records that a service was constructed for the current request (`service.constructed`).
 *
 * @example
 * class Mailer { constructor() { recordService('Mailer') } }
 */
export function recordService(name: string, ctx?: RequestContext): void {
  contextOf(ctx)?.log.record('service.constructed', { name })
}
