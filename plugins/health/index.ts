import {
  definePlugin,
  empty,
  html,
  json,
  redirect,
  view,
  type Kernel,
  type Reply,
  type RequestContext,
} from 'fw'
import { cacheCheck, type CacheCheckOptions } from './checks/cache.js'
import { databaseCheck } from './checks/database.js'
import { diskSpaceCheck, type DiskSpaceOptions } from './checks/disk-space.js'
import { memoryLimitCheck, type MemoryLimitOptions } from './checks/memory-limit.js'
import { ietf, ietfStatusCode, verdict, wellKnown } from './formats.js'
import { HealthCheckCommand } from './health-command.js'
import { dashboardRows, renderDashboard, renderRuntime, type DashboardData } from './pages.js'
import { HealthRegistry } from './registry.js'
import { runtimeInfo } from './runtime-info.js'
import type { HealthCheck, HealthReport, RunOptions } from './types.js'

/** Options of the health plugin. */
export interface HealthOptions {
  /** Per-check timeout in ms (a check's own `timeoutMs` wins). Default 2000. */
  timeoutMs?: number
  /** How long a full run's report is reused, in ms. Default 1000. */
  reuseMs?: number
  /** The service name in `/health/status` and the IETF format. Default config `app.name`. */
  service?: string
  /** `disk_space` settings, or `false` not to register it. */
  diskSpace?: DiskSpaceOptions | false
  /** `memory_limit` settings, or `false` not to register it. */
  memoryLimit?: MemoryLimitOptions | false
  /** `cache` settings (`redisUrl`), or `false` not to register it. */
  cache?: CacheCheckOptions | false
  /** Register `database` when the database plugin is registered. Default true. */
  database?: boolean
  /** Declare the HTTP routes. Default true. */
  routes?: boolean
  /** Lowest usertype that may read `/health/phpinfo`. Default 90. */
  runtimeInfoUsertype?: number
}

/** What `kernel.plugin('health')` returns. */
export interface HealthApi {
  /**
   * Adds a check, or replaces the one of that name. The name is snake_case (`disk_space`):
   * another fails with `FW_ERR_HEALTH_CHECK_NAME`, a check without `run()` with
   * `FW_ERR_HEALTH_CHECK_INVALID`.
   */
  register(check: HealthCheck): void
  /** Removes a check; true when there was one. */
  unregister(name: string): boolean
  /** Runs the checks (shared while in flight, reused for `reuseMs`; see {@link RunOptions}). */
  run(options?: RunOptions): Promise<HealthReport>
  /** The registered checks. */
  checks(): HealthCheck[]
  /** How many full runs probed (not shared or reused) since boot. */
  readonly runs: number
  /**
   * Where the dashboard sends a guest to sign in (the auth plugin registers its page); without
   * one, a guest is refused.
   */
  signInWith(url: (returnTo: string) => string | undefined): void
}

declare module 'fw' {
  interface PluginApis {
    health: HealthApi
  }
}

const JSON_HEADERS = {
  'cache-control': 'no-store',
  'access-control-allow-origin': '*',
} as const

function publicJson(value: unknown, status: number, contentType?: string): Reply {
  const reply = json(value, status)
  for (const [k, v] of Object.entries(JSON_HEADERS)) reply.header(k, v)
  if (contentType) reply.header('content-type', contentType)
  return reply
}

function preflight(): Reply {
  return empty(204)
    .header('cache-control', 'no-store')
    .header('access-control-allow-origin', '*')
    .header('access-control-allow-methods', 'GET, HEAD, OPTIONS')
    .header('access-control-allow-headers', 'Accept, Content-Type')
    .header('access-control-max-age', '600')
}

function wantsHealthJson(ctx: RequestContext): boolean {
  return /application\/health\+json/i.test(ctx.header('accept') ?? '')
}

function declareRoutes(
  kernel: Kernel,
  api: HealthApi,
  options: HealthOptions,
  signInUrl: () => (returnTo: string) => string | undefined,
): void {
  // A load balancer's probes answer during maintenance: failing them would take every instance
  // out, and the balancer would answer with its own page instead of the app's 503 and Retry-After.
  for (const path of ['/health/ready', '/health/status', '/health/check'])
    kernel.maintenance.exempt(path)
  const service = (): string => options.service ?? kernel.config.app.name
  const code = (report: HealthReport): number => (report.status === 'ok' ? 200 : 503)
  const r = kernel.router
  r.get('health/check', async (ctx) => {
    const report = await api.run()
    if (wantsHealthJson(ctx))
      return publicJson(ietf(report, service()), ietfStatusCode(report), 'application/health+json')
    return publicJson(report, code(report))
  }).name('health.check')
  r.options('health/check', preflight).name('health.check.options')
  r.get('health/status', async () => {
    const report = await api.run()
    return publicJson(verdict(report, service()), code(report))
  }).name('health.status')
  r.options('health/status', preflight).name('health.status.options')
  // Readiness (should this instance get traffic?), apart from liveness (`/health/status`): it fails
  // from the moment a stop begins, and while a plugin's condition does (the database unreachable).
  // Runs no check of the registry: a load balancer asks every few hundred milliseconds.
  r.get('health/ready', async () => {
    const { ready, reasons } = await kernel.readiness.report()
    return publicJson(
      ready ? { status: 'ready' } : { status: 'unready', reasons },
      ready ? 200 : 503,
    )
  }).name('health.ready')
  if (kernel.hasFeature('authorization-server')) {
    r.get('.well-known/health', async () => {
      const body = wellKnown(await api.run())
      return publicJson(body, body.status === 'ok' ? 200 : 503)
    }).name('health.well-known')
    r.options('.well-known/health', preflight).name('health.well-known.options')
  }
  const views = kernel.hasPlugin('views') ? kernel.plugin('views') : undefined
  // A guest is sent to sign in where the auth plugin says; without one, refused.
  const signIn = (path: string): Reply => {
    const url = signInUrl()(path)
    if (url !== undefined) return redirect(url)
    return html('<!doctype html><title>Sign-in required</title><h1>Sign-in required</h1>', 401)
  }
  r.get('health', async (ctx) => {
    const who = await ctx.identity()
    if (who?.id === undefined) return signIn('/health')
    const report = await api.run()
    const data: DashboardData = {
      title: 'Health',
      service: service(),
      report,
      rows: dashboardRows(report),
      generated_at: new Date().toISOString(),
      user: String(who.username ?? who.id),
    }
    const status = code(report) === 200 ? 200 : 503
    const reply = views?.resolve('health', ctx)
      ? view('health', data, status)
      : html(renderDashboard(data), status)
    return reply.header('cache-control', 'no-store')
  }).name('health.dashboard')
  r.get('health/phpinfo', async (ctx) => {
    const who = await ctx.identity()
    if (who?.id === undefined) return signIn('/health/phpinfo')
    if ((who.usertype ?? 0) < (options.runtimeInfoUsertype ?? 90))
      return html('<!doctype html><title>Forbidden</title><h1>Forbidden</h1>', 403)
    const sections = runtimeInfo(kernel)
    const title = `Node.js ${process.version} runtime`
    const reply = views?.resolve('health-phpinfo', ctx)
      ? view('health-phpinfo', { title, sections })
      : html(renderRuntime(title, sections))
    return reply.header('cache-control', 'no-store')
  }).name('health.phpinfo')
}

/**
 * Health reporting (README.md): a registry of named checks run in parallel under timeouts, shared
 * between concurrent callers and reused for a second; the built-in checks `database`, `disk_space`,
 * `memory_limit`, `cache` and (with `authorization-server`) `signing_keys`; `/health/check`,
 * `/health/status`, `/health`, `/health/phpinfo`, `/.well-known/health`; and `fw health:check`.
 */
export const health = definePlugin({
  name: 'health',
  // database: the `database` check; views: the dashboard's templates. (The auth plugin lists
  // health: it registers a check and where a guest signs in.)
  optionalDependsOn: ['database', 'views'],
  setup(kernel, options: HealthOptions = {}): HealthApi {
    // Its pages at the site root only: an admin area never takes them (README.md "Endpoints").
    kernel.router.claim('health', '/health*')
    const registry = new HealthRegistry({ timeoutMs: options.timeoutMs, reuseMs: options.reuseMs })
    if (options.database !== false && kernel.hasPlugin('database'))
      registry.register(databaseCheck(kernel))
    if (options.diskSpace !== false)
      registry.register(diskSpaceCheck(kernel.root, options.diskSpace || {}))
    if (options.memoryLimit !== false)
      registry.register(memoryLimitCheck(options.memoryLimit || {}))
    if (options.cache !== false) registry.register(cacheCheck(options.cache || {}))
    let signInUrl = (_returnTo: string): string | undefined => undefined
    const api: HealthApi = {
      register: (check) => registry.register(check),
      unregister: (name) => registry.unregister(name),
      run: (runOptions) => registry.run(runOptions),
      checks: () => registry.checks(),
      get runs() {
        return registry.runs
      },
      signInWith: (url) => void (signInUrl = url),
    }
    if (options.routes !== false) declareRoutes(kernel, api, options, () => signInUrl)
    kernel.command(HealthCheckCommand)
    return api
  },
})

export default health

export { healthErrors } from './errors.js'
export { HealthRegistry } from './registry.js'
export type { RegistryOptions } from './registry.js'
export { CheckOmitted, result, worst } from './types.js'
export type { HealthCheck, HealthReport, HealthResult, HealthStatus, RunOptions } from './types.js'
export { cacheCheck, type CacheCheckOptions } from './checks/cache.js'
export { databaseCheck } from './checks/database.js'
export { diskSpaceCheck, type DiskSpaceOptions } from './checks/disk-space.js'
export {
  memoryLimitCheck,
  sampleMemory,
  type MemoryLimitOptions,
  type MemorySample,
} from './checks/memory-limit.js'
export { redisCheck, pingRedis, type RedisCheckOptions } from './checks/redis.js'
export { ietf, ietfStatusCode, verdict, wellKnown } from './formats.js'
export type { HealthVerdict, IetfCheck, IetfHealth, WellKnownHealth } from './formats.js'
