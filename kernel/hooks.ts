import { AsyncSeriesBailHook, AsyncSeriesHook, AsyncSeriesWaterfallHook } from 'tapable'
import type { RequestContext } from './context.js'
import type { Kernel } from './kernel-type.js'
import type { Reply } from './reply.js'
import type { RouteMatch } from './router/route.js'
import type { Identity } from './identity.js'

/** Where a tap goes: its name, or its name with a `stage` or `before` (tapable's tap options). */
export type TapOptions = string | { name: string; stage?: number; before?: string }

/**
 * tapable's `tap`, widened for the hooks that run per request: a synchronous tap may return a
 * promise when it has to wait (the kernel awaits it, `kernel/hook-runner.ts`), and answers at once
 * otherwise, so a request it has nothing to do for costs no promise.
 */
export interface WaitingTap<Args extends unknown[], R> {
  tap(options: TapOptions, fn: (...args: Args) => R | Promise<R>): void
}

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
   * **Order:** no built-in taps. First non-undefined return wins. A synchronous `tap` that answers
   * synchronously keeps the request free of promises (see `kernel/hook-runner.ts`).
   * **Example:** `kernel.hooks.request.tapPromise('cors', async (ctx) => ctx.method === 'OPTIONS' ? empty(204) : undefined)`
   */
  readonly request: AsyncSeriesBailHook<[RequestContext], Reply | undefined> &
    WaitingTap<[RequestContext], Reply | undefined>

  /**
   * **When:** per request, after `request`, to find what answers it.
   * **Arguments:** the request context (`ctx.method`, `ctx.routingPath`, `ctx.querystring`).
   * **Returns:** a `RouteMatch`, or `undefined` to let the next tap try. When every tap returns
   * `undefined` the kernel answers 404, or 405 with `Allow` when the path exists for other methods.
   * **Order:** built-in: `legacy-r` (classic controllers named by `?r=`) at stage -5, `router` at
   * stage 0, `legacy` (classic controllers by path) at stage 10. A tap that rewrites
   * `ctx.routingPath` (to strip a path prefix, say) runs below -5 and returns `undefined`. (The
   * admin area taps `request`, not `route`: it rewrites the path and sets `ctx.match` itself.)
   * **Example:** `kernel.hooks.route.tapPromise({ name: 'locale', stage: -10 }, async (ctx) => …)`
   */
  readonly route: AsyncSeriesBailHook<[RequestContext], RouteMatch | undefined> &
    WaitingTap<[RequestContext], RouteMatch | undefined>

  /**
   * **When:** per request, lazily: the first time something calls `ctx.identity()`. Never for a
   * request that does not ask.
   * **Arguments:** the request context.
   * **Returns:** the `Identity` the tap recognised, or `undefined` to let the next tap try.
   * **Order:** credential taps in the order API key, bearer token, web session. A debug grant is
   * not an identity: it opens the toolbar only, so the debug plugin does not tap this hook.
   * **Example:** `kernel.hooks.authenticate.tapPromise('apiKey', async (ctx) => lookUp(ctx.header('apikey')))`
   */
  readonly authenticate: AsyncSeriesBailHook<[RequestContext], Identity | undefined> &
    WaitingTap<[RequestContext], Identity | undefined>

  /**
   * **When:** per response, after the handler (or the error reply) produced a reply, errors,
   * redirects and 404s included.
   * **Arguments:** the reply so far, the request context.
   * **Returns:** the reply, changed or replaced (content negotiation, views, toolbar, `_debug`).
   * **Order:** views at stage -10, the api plugin's CORS and JSON/XML negotiation at 0, auth's
   * CSRF meta tag at 50, debug injection at 100.
   * **Example:** `kernel.hooks.render.tapPromise('xml', async (reply, ctx) => wantsXml(ctx) ? toXml(reply) : reply)`
   */
  readonly render: AsyncSeriesWaterfallHook<[Reply, RequestContext]> &
    WaitingTap<[Reply, RequestContext], Reply>

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
  readonly error: AsyncSeriesBailHook<[unknown, RequestContext], Reply | undefined> &
    WaitingTap<[unknown, RequestContext], Reply | undefined>

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
