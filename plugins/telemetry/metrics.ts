// The Prometheus metrics (text exposition format, with prom-client: the de-facto Node client,
// maintained, and its own registry here so an app's other metrics stay apart): request duration by
// route and status, requests in flight, statement duration, the health checks' state, and per
// queue of background jobs: waiting, running, failed, and each run's duration.
import type * as PromClient from 'prom-client'
import type { Histogram, Gauge, Registry } from 'prom-client'
import { importOptional, type RequestContext } from 'fw'
import { methodAttribute } from './method.js'
import { operationOf } from './operation.js'
import type { QueueFigures } from './types.js'

/** The instruments, and the registry they live in. */
export interface Metrics {
  readonly registry: Registry
  readonly duration: Histogram<'method' | 'route' | 'status_code'>
  readonly inFlight: Gauge
  readonly statements: Histogram<'operation'>
  readonly health: Gauge<'check'>
  readonly jobsWaiting: Gauge<'queue'>
  readonly jobsRunning: Gauge<'queue'>
  readonly jobsFailed: Gauge<'queue'>
  readonly jobDuration: Histogram<'queue' | 'status'>
}

/**
 * Loads prom-client (an optional peer dependency: FW_ERR_PACKAGE_MISSING when absent) and makes the
 * instruments (only when metrics are on).
 */
export async function createMetrics(prefix: string): Promise<Metrics> {
  const client = await importOptional<typeof PromClient>(
    'prom-client',
    "the telemetry plugin's metrics (telemetry.metrics)",
  )
  const registry = new client.Registry()
  const buckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
  return {
    registry,
    duration: new client.Histogram({
      name: `${prefix}http_server_request_duration_seconds`,
      help: 'Duration of HTTP server requests, by method, route (the declared path) and status.',
      labelNames: ['method', 'route', 'status_code'],
      buckets,
      registers: [registry],
    }),
    inFlight: new client.Gauge({
      name: `${prefix}http_server_active_requests`,
      help: 'HTTP server requests in flight.',
      registers: [registry],
    }),
    statements: new client.Histogram({
      name: `${prefix}db_client_operation_duration_seconds`,
      help: 'Duration of database statements, by operation (SELECT, INSERT…).',
      labelNames: ['operation'],
      buckets,
      registers: [registry],
    }),
    health: new client.Gauge({
      name: `${prefix}health_check_status`,
      help: 'Health checks: 1 when the check passes (ok or warn), 0 when it fails.',
      labelNames: ['check'],
      registers: [registry],
    }),
    jobsWaiting: new client.Gauge({
      name: `${prefix}jobs_waiting`,
      help: 'Background jobs waiting in their queue (created or waiting to be retried).',
      labelNames: ['queue'],
      registers: [registry],
    }),
    jobsRunning: new client.Gauge({
      name: `${prefix}jobs_running`,
      help: 'Background jobs running now, by queue.',
      labelNames: ['queue'],
      registers: [registry],
    }),
    jobsFailed: new client.Gauge({
      name: `${prefix}jobs_failed`,
      help: 'Background jobs that failed every attempt and are kept, by queue.',
      labelNames: ['queue'],
      registers: [registry],
    }),
    jobDuration: new client.Histogram({
      name: `${prefix}job_run_duration_seconds`,
      help: 'Duration of background job runs (attempts), by queue and outcome (completed, retrying, failed).',
      labelNames: ['queue', 'status'],
      buckets,
      registers: [registry],
    }),
  }
}

/** Sets the queue gauges to `queues`, and only those (a queue no longer reported is dropped). */
export function setQueueGauges(metrics: Metrics, queues: readonly QueueFigures[]): void {
  metrics.jobsWaiting.reset()
  metrics.jobsRunning.reset()
  metrics.jobsFailed.reset()
  for (const q of queues) {
    metrics.jobsWaiting.set({ queue: q.name }, q.waiting)
    metrics.jobsRunning.set({ queue: q.name }, q.running)
    metrics.jobsFailed.set({ queue: q.name }, q.failed)
  }
}

/**
 * Records a finished request: its duration, and each statement it ran. A method outside
 * `knownMethods` is counted as `_OTHER`.
 */
export function observeRequest(
  metrics: Metrics,
  ctx: RequestContext,
  status: number,
  end: number,
  knownMethods: ReadonlySet<string>,
): void {
  let route = '(unmatched)'
  for (const e of ctx.log.all()) {
    if (e.type === 'route.matched') route = `/${e.data.path}`
    else if (e.type === 'query.executed')
      metrics.statements.observe({ operation: operationOf(e.data.sql) }, e.data.duration / 1000)
  }
  const method = methodAttribute(ctx.method, knownMethods)
  metrics.duration.observe({ method, route, status_code: String(status) }, end / 1000)
}
