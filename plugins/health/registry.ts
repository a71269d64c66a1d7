import { performance } from 'node:perf_hooks'
import { messageOf } from 'fw'
import { healthErrors } from './errors.js'
import {
  CheckOmitted,
  worst,
  type HealthCheck,
  type HealthReport,
  type HealthResult,
  type HealthStatus,
  type RunOptions,
} from './types.js'

const STATUSES: ReadonlySet<string> = new Set<HealthStatus>(['ok', 'degraded', 'down'])
const NAME = /^[a-z][a-z0-9]*(_[a-z0-9]+)*$/

/** Options of {@link HealthRegistry}. */
export interface RegistryOptions {
  /** Per-check timeout in ms, unless the check sets `timeoutMs`. Default 2000. */
  timeoutMs?: number
  /** How long a full run's report is reused, in ms. Default 1000; 0 reuses nothing. */
  reuseMs?: number
  /** The clock (ms), for tests. Default `Date.now`. */
  now?: () => number
}

/**
 * The checks by name, and how they run: in parallel, each under its own timeout, a failure or a
 * timeout becoming `down`. Concurrent callers of a full run share one run in flight (single
 * flight) and its report is reused for `reuseMs`, so a burst of health requests probes once.
 */
export class HealthRegistry {
  readonly #checks = new Map<string, HealthCheck>()
  readonly #timeoutMs: number
  readonly #reuseMs: number
  readonly #now: () => number
  #inflight: Promise<HealthReport> | undefined
  #cached: { report: HealthReport; at: number } | undefined
  #generation = 0
  /** How many full runs actually probed (not shared, not reused): for tests and benchmarks. */
  runs = 0

  constructor(options: RegistryOptions = {}) {
    this.#timeoutMs = options.timeoutMs ?? 2000
    this.#reuseMs = options.reuseMs ?? 1000
    this.#now = options.now ?? Date.now
  }

  /**
   * Adds a check, or replaces the one of that name (how a built-in is overridden). Fails with
   * `FW_ERR_HEALTH_CHECK_NAME` when the name is not snake_case, `FW_ERR_HEALTH_CHECK_INVALID`
   * when there is no `run()`.
   */
  register(check: HealthCheck): void {
    if (typeof check?.name !== 'string' || !NAME.test(check.name))
      throw healthErrors.error('FW_ERR_HEALTH_CHECK_NAME', { name: JSON.stringify(check?.name) })
    if (typeof check.run !== 'function')
      throw healthErrors.error('FW_ERR_HEALTH_CHECK_INVALID', { name: check.name })
    this.#checks.set(check.name, check)
    this.#invalidate()
  }

  /** Removes a check; true when there was one. */
  unregister(name: string): boolean {
    const had = this.#checks.delete(name)
    if (had) this.#invalidate()
    return had
  }

  /** The registered checks, in registration order. */
  checks(): HealthCheck[] {
    return [...this.#checks.values()]
  }

  /**
   * Runs the checks and reports. A full run joins the one in flight, or reuses the last report
   * while it is younger than the reuse window (unless `fresh`). With `only`, runs just those;
   * with `timeoutMs`, under that timeout: both a run of its own.
   */
  run(options: RunOptions = {}): Promise<HealthReport> {
    const { only, timeoutMs } = options
    if (only !== undefined || timeoutMs !== undefined) {
      const wanted = only === undefined ? undefined : new Set(only)
      const checks = this.checks().filter((c) => wanted?.has(c.name) ?? true)
      return this.#probe(checks, timeoutMs)
    }
    if (this.#inflight) return this.#inflight
    const cached = this.#cached
    if (!options.fresh && cached && this.#now() - cached.at < this.#reuseMs)
      return Promise.resolve(cached.report)
    const generation = this.#generation
    const started = this.#now()
    this.runs++
    const running = this.#probe(this.checks()).finally(() => {
      if (this.#inflight === running) this.#inflight = undefined
    })
    this.#inflight = running
    running.then(
      (report) => {
        // A check registered or removed meanwhile makes this report stale: keep it out of the cache.
        if (generation === this.#generation) this.#cached = { report, at: started }
      },
      // The caller gets the failure through `running`; nothing is cached.
      () => undefined,
    )
    return running
  }

  #invalidate(): void {
    this.#generation++
    this.#cached = undefined
    this.#inflight = undefined
  }

  async #probe(checks: readonly HealthCheck[], timeoutMs?: number): Promise<HealthReport> {
    const results = await Promise.all(checks.map((check) => this.#runOne(check, timeoutMs)))
    const map: Record<string, HealthResult> = {}
    for (const r of results) if (r !== undefined) map[r.name] = r
    return { status: worst(Object.values(map).map((r) => r.status)), checks: map }
  }

  async #runOne(check: HealthCheck, forced?: number): Promise<HealthResult | undefined> {
    const timeoutMs = forced ?? check.timeoutMs ?? this.#timeoutMs
    const started = performance.now()
    const checkedAt = new Date(this.#now()).toISOString()
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<HealthResult>((resolve) => {
      timer = setTimeout(
        () =>
          resolve({
            status: 'down',
            name: check.name,
            message: `timed out after ${timeoutMs} ms`,
          }),
        timeoutMs,
      )
    })
    let outcome: HealthResult
    try {
      outcome = await Promise.race([
        Promise.resolve()
          .then(() => check.run())
          .then((r) => normalise(check.name, r)),
        timeout,
      ])
    } catch (error) {
      if (error instanceof CheckOmitted) {
        this.#checks.delete(check.name)
        return undefined
      }
      outcome = { status: 'down', name: check.name, message: messageOf(error) }
    } finally {
      clearTimeout(timer)
    }
    return {
      ...outcome,
      details: {
        ...outcome.details,
        checked_at: checkedAt,
        duration_ms: Math.round((performance.now() - started) * 10) / 10,
      },
    }
  }
}

function normalise(name: string, value: unknown): HealthResult {
  const r = value as Partial<HealthResult> | null | undefined
  if (r === null || typeof r !== 'object' || !STATUSES.has(r.status as string)) {
    return { status: 'down', name, message: 'the check returned no valid result' }
  }
  const details =
    r.details !== null && typeof r.details === 'object' && !Array.isArray(r.details)
      ? r.details
      : undefined
  return {
    status: r.status!,
    name,
    message: typeof r.message === 'string' ? r.message : String(r.message ?? ''),
    ...(details ? { details } : {}),
  }
}
