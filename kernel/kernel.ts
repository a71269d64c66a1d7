import { performance } from 'node:perf_hooks'
import { installBuiltinRouting } from './builtin-routing.js'
import { CompiledRoutes } from './compiled-routes.js'
import { ConfigResolver, hasFeature, isDevelopment, type FwConfig } from './config.js'
import type { RequestInit } from './context.js'
import { kernelErrors } from './error-codes.js'
import type { PhaseName } from './events.js'
import { runIsolated, runSeries } from './hook-runner.js'
import { createHooks, type KernelHooks } from './hooks.js'
import { inject, type InjectRequest, type InjectResponse } from './http/inject.js'
import type { StaticOptions } from './http/static-files.js'
import { Serving, type ListeningAddress } from './http/serving.js'
import { createConsoleLogger, type Logger } from './logger.js'
import { createMaintenanceProbe, type MaintenanceProbe } from './maintenance.js'
import { PluginSet, type AnyPlugin, type Plugin, type PluginApis } from './plugin.js'
import type { PluginName } from './plugin.js'
import { Readiness } from './readiness.js'
import { createRedaction, type Redaction } from './redact.js'
import type { Reply } from './reply.js'
import { respond } from './request-cycle.js'
import { createRequestCycle, type RequestCycle } from './request-cycle-deps.js'
import { ServeOptions } from './serve-options.js'
import { Router } from './router/router.js'
import type {
  BindingLoader,
  BootTiming,
  CommandClass,
  ControllerClass,
  KernelOptions,
  KernelState,
  Middleware,
} from './types.js'

/** The kernel: create one with `createKernel()`. */
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
  /** Whether this instance should get traffic (`GET /health/ready`): not while stopping. */
  readonly readiness = new Readiness()
  /** The maintenance probe: retry-after seconds while `var/MAINTENANCE` exists, else undefined. */
  readonly maintenance: MaintenanceProbe
  /** What plugins add to `fw serve`: `--require-<name>` flags, a one-process limit. */
  readonly serveOptions = new ServeOptions()

  readonly #development: boolean
  readonly #plugins: PluginSet
  readonly #routes = new CompiledRoutes()
  readonly #cycle: RequestCycle
  readonly #serving = new Serving()
  #state: KernelState = 'created'
  #booting: Promise<void> | undefined

  constructor(options: KernelOptions) {
    this.root = options.root ?? process.cwd()
    const configs = new ConfigResolver(options.config ?? {}, options.env, this.root)
    this.config = configs.config
    this.#plugins = new PluginSet(configs)
    this.config.app.root = this.root
    this.#development = isDevelopment(this.config, options.env)
    this.#logger = options.logger ?? createConsoleLogger(this.redaction)
    this.maintenance = createMaintenanceProbe(this.root)
    this.#cycle = createRequestCycle({
      hooks: this.hooks,
      router: this.router,
      routing: installBuiltinRouting(this.hooks, this.router),
      routes: this.#routes,
      logger: () => this.#logger,
      maintenance: this.maintenance,
      development: this.#development,
      scoped: () => this.#scoped,
      kernel: this,
      securityHeaders: this.config.http.security_headers,
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
   * Turns the request scope on: `currentContext()` then finds the request after an `await` too, in
   * every route that may wait (middleware, bindings, an async or promise-returning handler). The
   * database and logging plugins ask for it. On Node 20 it costs every async resource some
   * bookkeeping, so it is active only while such a request is.
   */
  useRequestScope(): this {
    this.#scoped = true
    return this
  }

  /** Where the kernel is in its lifecycle. */
  get state(): KernelState {
    return this.#state
  }
  /** True in development mode (docs/errors.md "Development mode"); a debug grant never counts. */
  isDevelopment(): boolean {
    return this.#development
  }
  /** True when `features` lists `name` (case-insensitive). */
  hasFeature(name: string): boolean {
    return hasFeature(this.config, name)
  }

  /** Registers a plugin with its options (set up at `boot()`); its config keys resolve now. */
  register<O, A>(
    plugin: Plugin<O, A>,
    ...options: undefined extends O ? [options?: O] : [options: O]
  ): this {
    this.#assertState('created', 'register a plugin')
    this.#plugins.add(plugin as AnyPlugin, options[0])
    return this
  }
  /** True when a plugin of that name is registered (in `setup`, only one it declares it uses). */
  hasPlugin(name: PluginName): boolean {
    return this.#plugins.has(name)
  }
  /** The API a plugin's `setup` returned (in `setup`, only of one it declares it uses). */
  plugin<N extends PluginName>(name: N): PluginApis[N] {
    return this.#plugins.api(name) as PluginApis[N]
  }

  /** Registers named middleware that routes and groups refer to by name. */
  middleware(name: string, fn: Middleware): this {
    this.#routes.addMiddleware(name, fn)
    return this
  }
  /** Registers a controller class under a name, for string handlers (`'Api.Products@index'`). */
  controller(name: string, cls: ControllerClass): this {
    this.#routes.addController(name, cls)
    return this
  }
  /** Registers how a model is loaded for implicit route binding (`route.bind('product', 'Product')`). */
  binding(model: string, loader: BindingLoader): this {
    this.#routes.addBinding(model, loader)
    return this
  }
  /** The loader registered for a model, if any. */
  bindingFor(model: string): BindingLoader | undefined {
    return this.#routes.bindingFor(model)
  }
  /** The middleware registered under a name, if any (what a route's `middleware` names). */
  middlewareFor(name: string): Middleware | undefined {
    return this.#routes.middlewareFor(name)
  }

  /** Serves a folder's files under a URL prefix (sirv, on the socket, before the pipeline). */
  static(prefix: string, dir: string, options: StaticOptions = {}): this {
    this.#serving.mount(prefix, dir, options)
    return this
  }

  /** Contributes a CLI command (a clipanion `Command` class) to `fw`, beside its own. */
  command(cls: CommandClass): this {
    this.#plugins.commands.push(cls)
    return this
  }
  /** The commands plugins contributed, in registration order. */
  commands(): readonly CommandClass[] {
    return this.#plugins.commands
  }

  /** Records a boot-time phase (a database plugin records `db-connect`). */
  recordBootPhase(name: PhaseName, duration: number): void {
    this.bootPhases.push({ name, duration })
  }
  /** The URL of a named route (`kernel.url('products.show', { id: 5 })`). */
  url(...args: Parameters<Router['url']>): string {
    return this.router.url(...args)
  }

  /**
   * Sets up every plugin (dependencies first), runs the `boot` hook, then compiles every route: an
   * unknown middleware, controller or binding fails here, not on the first request (body schemas
   * compile in `listen()`, so a command that only lists routes does not pay ajv). Idempotent.
   */
  boot(): Promise<void> {
    this.#booting ??= this.#boot()
    return this.#booting
  }

  async #boot(): Promise<void> {
    this.#assertState('created', 'boot')
    this.#state = 'booting'
    const started = performance.now()
    await this.#plugins.setUp(this, this.bootTimeline)
    await runSeries(this.hooks.boot, this)
    this.recordBootPhase('providers', performance.now() - started)
    this.router.compile()
    this.#routes.compileAll(this.router)
    this.recordBootPhase('bootstrap', performance.now() - started)
    this.#state = 'booted'
  }

  /**
   * Answers one request, whatever carried it: the transport-independent entry that the socket
   * server and `inject()` both call. Never rejects: every failure becomes a reply.
   */
  async handle(init: RequestInit): Promise<Reply> {
    return respond(this.#cycle, init)
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
    return inject(this.#cycle, request)
  }

  /** Boots if needed and listens; resolves with the address once the socket accepts. */
  async listen(
    port: number = this.config.http.port,
    host: string = this.config.http.host,
  ): Promise<ListeningAddress> {
    await this.boot()
    this.#assertState('booted', 'listen')
    this.#serving.assertIdle()
    this.#routes.prepareAll(this.router)
    await runSeries(this.hooks.listen, this)
    return this.#serving.start(this.#cycle, { ...this.config.http, port, host })
  }

  /** `fw dev`: boots, runs the `listen` taps, then answers `listening`'s socket. */
  async takeOver(listening: Kernel): Promise<void> {
    await this.boot()
    await runSeries(this.hooks.listen, this)
    listening.#cycle.successor = this.#cycle
  }

  /**
   * Stops: readiness fails at once; the server keeps answering for `delayMs` (default
   * `http.shutdown_delay`), then drains for up to `timeoutMs` (default `http.drain_timeout`), every
   * answer saying `Connection: close` (see `RunningServer.close`). Then runs the `shutdown` hook so
   * plugins close their resources. Idempotent.
   */
  async close(
    timeoutMs: number = this.config.http.drain_timeout * 1000,
    delayMs: number = this.config.http.shutdown_delay * 1000,
  ): Promise<void> {
    if (this.#state === 'closing' || this.#state === 'closed') return
    this.readiness.markStopping()
    if (this.#booting) await this.#booting.catch(() => undefined)
    this.#state = 'closing'
    await this.#serving.stop(timeoutMs, delayMs)
    // Every shutdown tap runs even when an earlier one fails: one broken resource must not keep
    // the others open. Failures are reported, then the first is rethrown.
    const failure = await runIsolated(
      this.hooks.shutdown,
      (tap, error) => this.logger.error(`shutdown tap '${tap}' failed`, { error }),
      this,
    )
    this.maintenance.close()
    this.#state = 'closed'
    if (failure !== undefined) throw failure
  }

  #assertState(expected: KernelState, action: string): void {
    if (this.#state !== expected) {
      throw kernelErrors.error('FW_ERR_KERNEL_STATE', { action, state: this.#state, expected })
    }
  }
}

type KernelClass = Kernel
declare module './kernel-type.js' {
  interface Kernel extends KernelClass {}
}
