/** A check's verdict: `down` is worse than `degraded`, which is worse than `ok`. */
export type HealthStatus = 'ok' | 'degraded' | 'down'

/** What a check returns (README.md "The report"). */
export interface HealthResult {
  status: HealthStatus
  /** The check's snake_case name; the registry sets it to the registered name. */
  name: string
  /** A human-readable summary. */
  message: string
  /**
   * Free-form data (`latency_ms`, `bits`, …). The registry adds `checked_at` (ISO 8601: when the
   * result was produced) and `duration_ms` (how long the check ran).
   */
  details?: Record<string, unknown>
}

/** A named check. `run` should never throw; if it does (or rejects), the result is `down`. */
export interface HealthCheck {
  /**
   * Unique snake_case name (lowercase letters and digits, words joined by single `_`, starting
   * with a letter: `disk_space`); registering a name again replaces the earlier check. Another
   * name fails `register()` with `FW_ERR_HEALTH_CHECK_NAME`.
   */
  readonly name: string
  run(): Promise<HealthResult> | HealthResult
  /** Overrides the registry's per-check timeout (default 2000 ms). */
  readonly timeoutMs?: number
  /**
   * Readies what `run` needs and is not the thing measured (the database check opens and connects
   * the database). `fw health:check` awaits every selected check's `open` first, outside the
   * timeouts; a failure is left to `run` to report. A served app has opened its resources already.
   */
  open?(): Promise<void>
}

/** The full report (README.md "The report"): the worst status and every result by name. */
export interface HealthReport {
  status: HealthStatus
  checks: Record<string, HealthResult>
}

/** Options of `run()`. */
export interface RunOptions {
  /** Run only these checks (unknown names are ignored); never cached or shared. */
  only?: readonly string[]
  /** Run now even when a result of the reuse window is at hand (still joins a run in flight). */
  fresh?: boolean
  /** Every check's timeout for this run, in ms, over its own and the registry's; never cached or shared. */
  timeoutMs?: number
}

const RANK: Record<HealthStatus, number> = { ok: 0, degraded: 1, down: 2 }

/** The worst of some statuses; `ok` for none. */
export function worst(statuses: Iterable<HealthStatus>): HealthStatus {
  let result: HealthStatus = 'ok'
  for (const s of statuses) if (RANK[s] > RANK[result]) result = s
  return result
}

/** A result, in one call: `result('ok', 'disk_space', '12 GB free', { free_bytes })`. */
export function result(
  status: HealthStatus,
  name: string,
  message: string,
  details?: Record<string, unknown>,
): HealthResult {
  return details === undefined ? { status, name, message } : { status, name, message, details }
}

/**
 * Thrown by a check that should not appear in the report at all (the database check when the
 * database never opened): the registry leaves it out of this report and drops it.
 */
export class CheckOmitted extends Error {
  constructor(reason: string) {
    super(reason)
    this.name = 'CheckOmitted'
  }
}
