import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable'
import type { RequestContext } from './context.js'
import type { Kernel } from './kernel.js'
import type { Reply } from './reply.js'
import type { RouteMatch } from './router/route.js'
import type { Identity } from './types.js'

/**
 * The kernel's hooks, grouped by lifecycle: boot → (per request) request → route → authenticate →
 * handler → render → annotate → (on failure) error → shutdown. Every tap needs a name: the name is
 * how the toolbar and the boot timeline attribute time. `docs/hooks.md` has a section per hook.
 */
export interface KernelHooks {
  /**
   * **When:** once, inside `kernel.boot()`, after every plugin's `setup` ran, in registration
   * order (dependencies first).
   * **Arguments:** the kernel.
   * **Returns:** nothing; a rejected promise fails boot.
   * **Order:** tap order = plugin order; use `stage` to run earlier (negative) or later.
   * **Example:** `kernel.hooks.boot.tapPromise('health', async (k) => { k.router.get('health/check', check) })`
   */
  readonly boot: AsyncSeriesHook<[Kernel]>

  /**
   * **When:** once, inside `kernel.listen()`, after `boot` and before the socket accepts its first
   * connection. Not for `inject()`: work that only a serving process needs (running migrations,
   * warming a cache) goes here, so CLI commands that boot the app stay fast.
   * **Arguments:** the kernel.
   * **Returns:** nothing; a rejected promise fails `listen()`.
   * **Order:** plugin order; the database plugin migrates and seeds here.
   * **Example:** `kernel.hooks.listen.tapPromise('database', () => db.prepare())`
   */
  readonly listen: AsyncSeriesHook<[Kernel]>

  /**
   * **When:** per request, first, before routing (CORS preflight, rate limits). Maintenance mode
   * is checked by the kernel before this hook.
   * **Arguments:** the request context.
   * **Returns:** a `Reply` to answer at once (routing, middleware and the handler are skipped;
   * `render` and `annotate` still run), or `undefined` to go on.
   * **Order:** no built-in taps. First non-undefined return wins. The kernel runs the taps itself
   * (same order and bail rule, no tapable promise chain) unless an interceptor is registered.
   * **Example:** `kernel.hooks.request.tapPromise('cors', async (ctx) => ctx.method === 'OPTIONS' ? empty(204) : undefined)`
   */
  readonly request: AsyncSeriesBailHook<[RequestContext], Reply | undefined>

  /**
   * **When:** per request, after `request`, to find what answers it.
   * **Arguments:** the request context (`ctx.method`, `ctx.routingPath`, `ctx.querystring`).
   * **Returns:** a `RouteMatch`, or `undefined` to let the next tap try. When every tap returns
   * `undefined` the kernel answers 404, or 405 with `Allow` when the path exists for other methods.
   * **Order:** built-in: `legacy-r` (classic controllers named by `?r=`) at stage -5, `router` at
   * stage 0, `legacy` (classic controllers by path) at stage 10. A tap that rewrites
   * `ctx.routingPath` (the admin area strips its prefix) runs below -5 and returns `undefined`.
   * **Example:** `kernel.hooks.route.tapPromise({ name: 'admin', stage: -10 }, async (ctx) => …)`
   */
  readonly route: AsyncSeriesBailHook<[RequestContext], RouteMatch | undefined>

  /**
   * **When:** per request, lazily: the first time something calls `ctx.identity()`. Never for a
   * request that does not ask.
   * **Arguments:** the request context.
   * **Returns:** the `Identity` the tap recognised, or `undefined` to let the next tap try.
   * **Order:** credential taps in the order API key, bearer token, web session. A debug grant is
   * not an identity: it opens the toolbar only, so the debug plugin does not tap this hook.
   * **Example:** `kernel.hooks.authenticate.tapPromise('apiKey', async (ctx) => lookUp(ctx.header('apikey')))`
   */
  readonly authenticate: AsyncSeriesBailHook<[RequestContext], Identity | undefined>

  /**
   * **When:** per response, after the handler (or the error reply) produced a reply, errors,
   * redirects and 404s included.
   * **Arguments:** the reply so far, the request context.
   * **Returns:** the reply, changed or replaced (content negotiation, views, toolbar, `_debug`).
   * **Order:** views at stage -10, the api plugin's CORS and JSON/XML negotiation at 0, auth's
   * CSRF meta tag at 50, debug injection at 100. Run by the kernel itself like `request`.
   * **Example:** `kernel.hooks.render.tapPromise('xml', async (reply, ctx) => wantsXml(ctx) ? toXml(reply) : reply)`
   */
  readonly render: AsyncSeriesWaterfallHook<[Reply, RequestContext]>

  /**
   * **When:** per response, always, last, after `render` (also for errors, redirects, 204s and
   * replies from the `request` hook). A tap that throws is recorded and skipped; it cannot break
   * the response.
   * **Arguments:** the final reply (add headers to it), the request context (read `ctx.log`).
   * **Returns:** nothing.
   * **Order:** no built-in taps; Server-Timing, X-Fw-Debug, X-Request-Id, Vary live here.
   * **Example:** `kernel.hooks.annotate.tapPromise('timing', async (reply, ctx) => { reply.header('server-timing', toServerTiming(ctx.log)) })`
   */
  readonly annotate: AsyncSeriesHook<[Reply, RequestContext]>

  /**
   * **When:** per request that threw (handler, middleware, a hook), before the kernel's own error
   * reply is built.
   * **Arguments:** what was thrown, the request context.
   * **Returns:** a `Reply` to answer with (a plugin's own error envelope), or `undefined` for the
   * kernel's default (HttpError → its status and body; anything else → 500, or 503 in
   * maintenance).
   * **Order:** first non-undefined return wins.
   * **Example:** `kernel.hooks.error.tapPromise('list', async (err, ctx) => err instanceof ListError ? json(err.envelope, 400) : undefined)`
   */
  readonly error: AsyncSeriesBailHook<[unknown, RequestContext], Reply | undefined>

  /**
   * **When:** once, inside `kernel.close()`, after the server stopped accepting and in-flight
   * requests finished.
   * **Arguments:** the kernel.
   * **Returns:** nothing. Every tap runs even when one rejects; failures are reported through
   * `kernel.logger` and the first is rethrown from `close()`.
   * **Order:** reverse plugin order is not enforced: give resources that others use a later stage.
   * **Example:** `kernel.hooks.shutdown.tapPromise('database', () => orm.close())`
   */
  readonly shutdown: AsyncSeriesHook<[Kernel]>
}

/** A tap as tapable stores it: its kind decides how it is called. */
export interface StoredTap {
  readonly type: 'sync' | 'async' | 'promise'
  // tapable types it as `Function`; its arity depends on the hook.
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  readonly fn: Function
}

/**
 * Calls one tap of any kind (`tap`, `tapAsync`, `tapPromise`) and waits for it. The kernel uses it
 * where taps must run in isolation from each other (`annotate`, `shutdown`), which tapable's
 * compiled series cannot do.
 */
export function callTap(tap: StoredTap, args: readonly unknown[]): Promise<unknown> {
  if (tap.type === 'async') {
    return new Promise((resolve, reject) => {
      ;(tap.fn as (...a: unknown[]) => void)(...args, (error: unknown, result: unknown) =>
        error ? reject(error) : resolve(result),
      )
    })
  }
  try {
    return Promise.resolve((tap.fn as (...a: unknown[]) => unknown)(...args))
  } catch (error) {
    return Promise.reject(error)
  }
}

/**
 * Runs a bail hook's taps in order for one argument, as tapable's `promise()` does (the first
 * result other than `undefined` ends it; a promise a sync tap returns is the result, adopted), but
 * without tapable's generated promise chain: a sync tap costs a call, a promise tap one await. For
 * the hooks that run on every request (`request`), where a promise each tap adds up.
 */
export async function runBailHook<A, R>(
  taps: readonly StoredTap[],
  arg: A,
): Promise<R | undefined> {
  for (const tap of taps) {
    const result =
      tap.type === 'sync'
        ? (tap.fn as (a: A) => unknown)(arg)
        : tap.type === 'promise'
          ? await (tap.fn as (a: A) => unknown)(arg)
          : await callTap(tap, [arg])
    if (result !== undefined) return result as R
  }
  return undefined
}

/**
 * Runs a waterfall hook's taps in order, as tapable's `promise()` does (each tap gets the value the
 * previous one returned, `undefined` keeping it), with the same economy as {@link runBailHook}.
 */
export async function runWaterfallHook<V, C>(
  taps: readonly StoredTap[],
  value: V,
  ctx: C,
): Promise<V> {
  let current = value
  for (const tap of taps) {
    const result =
      tap.type === 'sync'
        ? (tap.fn as (v: V, c: C) => unknown)(current, ctx)
        : tap.type === 'promise'
          ? await (tap.fn as (v: V, c: C) => unknown)(current, ctx)
          : await callTap(tap, [current, ctx])
    if (result !== undefined) current = result as V
  }
  return current
}

/** Creates the frozen hook object a kernel owns. */
export function createHooks(): KernelHooks {
  return Object.freeze({
    boot: new AsyncSeriesHook<[Kernel]>(['kernel']),
    listen: new AsyncSeriesHook<[Kernel]>(['kernel']),
    request: new AsyncSeriesBailHook<[RequestContext], Reply | undefined>(['ctx']),
    route: new AsyncSeriesBailHook<[RequestContext], RouteMatch | undefined>(['ctx']),
    authenticate: new AsyncSeriesBailHook<[RequestContext], Identity | undefined>(['ctx']),
    render: new AsyncSeriesWaterfallHook<[Reply, RequestContext]>(['reply', 'ctx']),
    annotate: new AsyncSeriesHook<[Reply, RequestContext]>(['reply', 'ctx']),
    error: new AsyncSeriesBailHook<[unknown, RequestContext], Reply | undefined>(['error', 'ctx']),
    shutdown: new AsyncSeriesHook<[Kernel]>(['kernel']),
  })
}
