import { performance } from 'node:perf_hooks'
import {
  hasFeature,
  isDevelopment,
  resolveConfig,
  type FwConfig,
  type UserConfig,
} from './config.js'
import { RequestContext, type RequestInit } from './context.js'
import { FwError } from './errors.js'
import { EventLog, type PhaseName } from './events.js'
import { callTap, createHooks, type KernelHooks } from './hooks.js'
import {
  prepareInject,
  readPayload,
  toInjectResponse,
  type InjectRequest,
  type InjectResponse,
} from './http/inject.js'
import { serialize } from './http/serialize.js'
import type { RunningServer, StaticMount } from './http/server.js'
import { createConsoleLogger, type Logger } from './logger.js'
import { createRedaction, type Redaction } from './redact.js'
import { createMaintenanceProbe } from './maintenance.js'
import { orderPlugins, type AnyPlugin, type Plugin, type Registration } from './plugin.js'
import { CompiledRoutes } from './compiled-routes.js'
import type { Pipeline } from './pipeline.js'
import { installBuiltinRouting, type BuiltinRouting } from './builtin-routing.js'
import { handle } from './request-cycle.js'
import { runInContext } from './scope.js'
import type { Reply } from './reply.js'
import type { Route, RouteMatch } from './router/route.js'
import { Router } from './router/router.js'
import type { BindingLoader, CommandClass, ControllerClass, Middleware } from './types.js'

/**
 * The APIs plugins return from `setup`, by plugin name. A plugin declares its entry by declaration
 * merging so `kernel.plugin('health')` is typed:
 *
 * @example
 * declare module 'fw' {
 *   interface PluginApis { health: HealthApi }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface PluginApis {}

/** Options of {@link createKernel}. */
export interface KernelOptions {
  /** The application's own directory (`var/log`, `var/MAINTENANCE`, …). Default: the cwd. */
  root?: string
  /** The application's configuration, merged over the defaults, under the environment. */
  config?: UserConfig
  /** The environment to read overrides from. Default: `process.env`. */
  env?: NodeJS.ProcessEnv
  /** Where the kernel reports failures (500s, broken taps). Default: JSON lines on stderr. */
  logger?: Logger
}

/** A kernel's lifecycle state. */
export type KernelState = 'created' | 'booting' | 'booted' | 'closing' | 'closed'

/** A measured boot phase or plugin setup, in milliseconds. */
export interface BootTiming {
  readonly name: string
  readonly duration: number
}

/**
 * Creates a kernel: the hooks, the router, the configuration. Register plugins, then `boot()`, then
 * `listen()` or `inject()`.
 *
 * @example
 * const kernel = createKernel({ config: { app: { name: 'shop' } } })
 * kernel.router.get('hello', () => ({ hello: 'world' }))
 * const res = await kernel.inject({ url: '/hello' })
 */
export function createKernel(options: KernelOptions = {}): Kernel {
  return new Kernel(options)
}

/** The kernel. See {@link createKernel}. */
export class Kernel {
  /** The typed hooks plugins tap; see `docs/hooks.md`. */
  readonly hooks: KernelHooks = createHooks()
  /** The router: declare routes on it during `setup` or in a `boot` tap. */
  readonly router: Router = new Router()
  readonly config: FwConfig
  readonly root: string
  /** The one secret rule: logs, `_debug`, `/health/phpinfo`, errors (docs/redaction.md). */
  readonly redaction: Redaction = createRedaction()
  #logger: Logger
  #scoped = false
  /** Boot-time phases (`bootstrap`, `providers`, `db-connect`, …), measured once. */
  readonly bootPhases: BootTiming[] = []
  /** Each plugin's setup time, in boot order (like avvio's boot timeline). */
  readonly bootTimeline: BootTiming[] = []

  readonly #development: boolean
  readonly #registrations: Registration[] = []
  readonly #apis = new Map<string, unknown>()
  readonly #middleware = new Map<string, Middleware>()
  readonly #controllers = new Map<string, ControllerClass>()
  readonly #bindings = new Map<string, BindingLoader>()
  readonly #compiled: CompiledRoutes
  readonly #statics: StaticMount[] = []
  readonly #commands: CommandClass[] = []
  /** The maintenance probe: retry-after seconds while `var/MAINTENANCE` exists, else undefined. */
  readonly maintenance: (now?: number) => number | undefined
  #state: KernelState = 'created'
  readonly #routing: BuiltinRouting
  #booting: Promise<void> | undefined
  #server: RunningServer | undefined

  constructor(options: KernelOptions) {
    this.root = options.root ?? process.cwd()
    this.config = resolveConfig(options.config ?? {}, { root: this.root, env: options.env })
    this.config.app.root = this.root
    this.#development = isDevelopment(this.config, options.env)
    this.#logger = options.logger ?? createConsoleLogger(this.redaction)
    this.maintenance = createMaintenanceProbe(this.root)
    this.#routing = installBuiltinRouting(this.hooks, this.router)
    this.#compiled = new CompiledRoutes({
      middleware: (name) => this.#middleware.get(name),
      controller: (name) => this.#controllers.get(name),
      binding: (model) => this.#bindings.get(model),
    })
  }

  /** Where the kernel reports failures (500s, broken taps); the logging plugin replaces it. */
  get logger(): Logger {
    return this.#logger
  }

  /** Replaces the logger the kernel reports through (the logging plugin calls it in `setup`). */
  useLogger(logger: Logger): this {
    this.#logger = logger
    return this
  }

  /**
   * Runs every request inside an AsyncLocalStorage scope so that `currentContext()` finds it from
   * any code the request awaits (the database plugin needs it to attribute queries). Off unless a
   * plugin asks: on Node 20 the scope costs every promise a little.
   */
  useRequestScope(): this {
    this.#scoped = true
    return this
  }

  /** Where the kernel is in its lifecycle. */
  get state(): KernelState {
    return this.#state
  }

  /** True in development mode (spec-notes.md "Modes and switches"); a debug grant never makes it so. */
  isDevelopment(): boolean {
    return this.#development
  }

  /** True when `features` lists `name` (case-insensitive). */
  hasFeature(name: string): boolean {
    return hasFeature(this.config, name)
  }

  /** Registers a plugin with its options; set up at `boot()`, after what it `dependsOn`. */
  register<O, A>(
    plugin: Plugin<O, A>,
    ...options: undefined extends O ? [options?: O] : [options: O]
  ): this {
    this.#assertState('created', 'register a plugin')
    this.#registrations.push({ plugin: plugin as AnyPlugin, options: options[0] })
    return this
  }

  /** True when a plugin of that name is registered. */
  hasPlugin(name: string): boolean {
    return this.#registrations.some((r) => r.plugin.name === name)
  }

  /** The API a plugin's `setup` returned. */
  plugin<N extends keyof PluginApis>(name: N): PluginApis[N]
  plugin<A = unknown>(name: string): A
  plugin(name: string): unknown {
    if (!this.#apis.has(name)) {
      const known = this.#registrations.some((r) => r.plugin.name === name)
      throw new FwError(
        'FW_ERR_PLUGIN_UNKNOWN',
        known
          ? `Plugin '${name}' is registered but not set up yet. Add '${name}' to your plugin's dependsOn, or ask for it inside a boot tap.`
          : `Plugin '${name}' is not registered. Register it with kernel.register(...) before boot.`,
      )
    }
    return this.#apis.get(name)
  }

  /** Registers named middleware that routes and groups refer to by name. */
  middleware(name: string, fn: Middleware): this {
    if (this.#middleware.has(name)) {
      throw new FwError(
        'FW_ERR_MIDDLEWARE_DUPLICATE',
        `Middleware '${name}' is already registered. Pick another name.`,
      )
    }
    this.#middleware.set(name, fn)
    return this
  }

  /** Registers a controller class under a name, for string handlers (`'Api.Products@index'`). */
  controller(name: string, cls: ControllerClass): this {
    this.#controllers.set(name, cls)
    return this
  }

  /** Registers how a model is loaded for implicit route binding (`route.bind('product', 'Product')`). */
  binding(model: string, loader: BindingLoader): this {
    this.#bindings.set(model, loader)
    return this
  }

  /** The loader registered for a model, if any. */
  bindingFor(model: string): BindingLoader | undefined {
    return this.#bindings.get(model)
  }

  /** Serves a folder's files under a URL prefix (sirv, on the socket, before the pipeline). */
  static(
    prefix: string,
    dir: string,
    options: { maxAge?: number; immutable?: boolean } = {},
  ): this {
    this.#statics.push({ prefix: `/${prefix.replace(/^\/+|\/+$/g, '')}`, dir, ...options })
    return this
  }

  /**
   * Contributes a CLI command (a clipanion `Command` class) to `fw`. The CLI loads the app, boots
   * it, and offers every contributed command beside its own.
   */
  command(cls: CommandClass): this {
    this.#commands.push(cls)
    return this
  }

  /** The commands plugins contributed, in registration order. */
  commands(): readonly CommandClass[] {
    return this.#commands
  }

  /** Records a boot-time phase (a database plugin records `db-connect`). */
  recordBootPhase(name: PhaseName | string, duration: number): void {
    this.bootPhases.push({ name, duration })
  }

  /** The URL of a named route. */
  url(
    name: string,
    params?: Record<string, string | number>,
    query?: Record<string, string | number>,
  ): string {
    return this.router.url(name, params, query)
  }

  /**
   * Sets up every plugin (dependencies first), runs the `boot` hook, then compiles every route: an
   * unknown middleware, controller or binding fails here, not on the first request. Idempotent.
   */
  boot(): Promise<void> {
    this.#booting ??= this.#boot()
    return this.#booting
  }

  async #boot(): Promise<void> {
    this.#assertState('created', 'boot')
    this.#state = 'booting'
    const started = performance.now()
    const ordered = orderPlugins(this.#registrations)
    const providersStart = performance.now()
    for (const { plugin, options } of ordered) {
      const t = performance.now()
      this.#apis.set(plugin.name, await plugin.setup(this, options))
      this.bootTimeline.push({ name: plugin.name, duration: performance.now() - t })
    }
    await this.hooks.boot.promise(this)
    this.recordBootPhase('providers', performance.now() - providersStart)
    this.router.compile()
    for (const route of this.router.routes()) this.pipelineFor(route)
    if (this.router.fallbackRoute) this.pipelineFor(this.router.fallbackRoute)
    this.recordBootPhase('bootstrap', performance.now() - started)
    this.#state = 'booted'
  }

  /** A route's handler as `route.matched` and `fw route:list` show it (computed once per route). */
  handlerNameOf(route: Route): string {
    return this.#compiled.nameOf(route)
  }

  /** The compiled pipeline of a route (built once, on boot or first use). */
  pipelineFor(route: Route): Pipeline {
    return this.#compiled.pipelineOf(route)
  }

  /** @internal True while the `route` hook holds only the kernel's own taps. */
  builtinRoutingOnly(): boolean {
    return this.#routing.only()
  }

  /** @internal What the kernel's own `route` taps answer, without the hook's promise chain. */
  routeDirect(ctx: RequestContext): RouteMatch | undefined {
    return this.#routing.direct(ctx)
  }

  /**
   * Answers one request, whatever carried it: the transport-independent entry that the socket
   * server and `inject()` both call. Never rejects: every failure becomes a reply.
   */
  handle(init: RequestInit): Promise<Reply> {
    const ctx = new RequestContext(this, init, new EventLog())
    return this.#scoped ? runInContext(ctx, () => handle(this, ctx)) : handle(this, ctx)
  }

  /**
   * Answers a request in-process, with no socket, exactly as a client would see it (HEAD bodies
   * dropped, content length set). Boots the kernel first if needed.
   *
   * @example
   * const res = await kernel.inject({ method: 'POST', url: '/things', body: { name: 'x' } })
   * assert.is(res.status, 201)
   */
  async inject(request: InjectRequest | string): Promise<InjectResponse> {
    if (this.#state === 'created' || this.#state === 'booting') await this.boot()
    const req = prepareInject(typeof request === 'string' ? { url: request } : request)
    const log = new EventLog()
    const ctx = new RequestContext(
      this,
      {
        ...req,
        secure: typeof request === 'object' && request.secure === true,
        ip: (typeof request === 'object' && request.remoteAddress) || '127.0.0.1',
      },
      log,
    )
    const reply = await (this.#scoped
      ? runInContext(ctx, () => handle(this, ctx))
      : handle(this, ctx))
    const wire = serialize(reply, req.method)
    return toInjectResponse(wire, await readPayload(wire), reply, log.all())
  }

  /** Boots if needed and listens; resolves with the address once the socket accepts. */
  async listen(
    port: number = this.config.http.port,
    host: string = this.config.http.host,
  ): Promise<{ port: number; host: string; url: string }> {
    await this.boot()
    this.#assertState('booted', 'listen')
    if (this.#server)
      throw new FwError(
        'FW_ERR_KERNEL_STATE',
        'The kernel is already listening. Call close() first.',
      )
    await this.hooks.listen.promise(this)
    // Loaded on first listen: commands that never serve (route:list, down) skip polka and sirv.
    const { startServer } = await import('./http/server.js')
    this.#server = await startServer(
      {
        handle: (init) => this.handle(init),
        onWriteError: (error) => this.logger.error('writing a response failed', { error }),
      },
      { port, host, trustProxy: this.config.http.trust_proxy, statics: this.#statics },
    )
    const address = this.#server.address
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
    return { port: address.port, host: address.address, url: `http://${shownHost}:${address.port}` }
  }

  /**
   * Stops accepting connections and drains: requests already read (and any arriving on an open
   * keep-alive socket meanwhile) are answered with `Connection: close`, idle sockets are closed
   * after a short grace; after `timeoutMs` (default `http.drain_timeout`, 30 s) every socket is
   * closed. Then runs the `shutdown` hook so plugins close their resources. Idempotent.
   */
  async close(timeoutMs: number = this.config.http.drain_timeout * 1000): Promise<void> {
    if (this.#state === 'closing' || this.#state === 'closed') return
    if (this.#booting) await this.#booting.catch(() => undefined)
    this.#state = 'closing'
    await this.#server?.close(timeoutMs)
    this.#server = undefined
    // Every shutdown tap runs even when an earlier one fails: one broken resource must not keep
    // the others open. Failures are reported, then the first is rethrown.
    let failure: unknown
    for (const tap of this.hooks.shutdown.taps) {
      try {
        await callTap(tap, [this])
      } catch (error) {
        this.logger.error(`shutdown tap '${tap.name}' failed`, { error })
        failure ??= error
      }
    }
    this.#state = 'closed'
    if (failure !== undefined) throw failure
  }

  #assertState(expected: KernelState, action: string): void {
    if (this.#state !== expected) {
      throw new FwError(
        'FW_ERR_KERNEL_STATE',
        `Cannot ${action} while the kernel is ${this.#state}; that is only possible while it is ${expected}.`,
      )
    }
  }
}
