import { definePlugin } from 'fw'
import { jobCommands } from './commands.js'
import type { TelemetryApi } from 'fw/plugins/telemetry'
import { jobsProjection, serveRuns } from './debug-view.js'
import './events.js'
import { queueChecks } from './health.js'
import { JobsRuntime } from './jobs-runtime.js'
import { queueTablesMigration } from './migration.js'
import type { FinishedRun } from './run.js'
import type { JobsApi, JobsOptions } from './types.js'

/**
 * Background jobs and schedules on the app's own PostgreSQL (or PGlite), through pg-boss: jobs
 * defined with `defineJob`, dispatched from handlers, plugins or the CLI (in the caller's
 * transaction when there is one), run by `fw work` or `fw serve --with-worker`, each run an event
 * log like a request's.
 */
export default definePlugin<JobsOptions | undefined, JobsApi>({
  name: 'jobs',
  dependsOn: ['database'],
  // The request id a dispatch records comes from the logging plugin, when it is registered.
  // health: a check per queue.
  // debug: the `jobs` key of the payload and the runs of a dispatched job.
  // telemetry: the request's span, kept with the job it dispatches.
  optionalDependsOn: ['logging', 'health', 'debug', 'telemetry'],
  config: {
    defaults: {
      jobs: {
        poll_interval: 1,
        maintenance_interval: 30,
        drain_timeout: 30,
        backlog_warn: 1000,
        oldest_warn: 300,
        cron_interval: 30,
      },
    },
    schema: {
      'jobs.poll_interval': { kind: 'seconds', min: 1, max: 60 },
      'jobs.maintenance_interval': { kind: 'seconds', min: 1, max: 3600 },
      'jobs.drain_timeout': { kind: 'seconds', min: 0, max: 86_400 },
      'jobs.backlog_warn': { kind: 'integer', min: 1 },
      'jobs.oldest_warn': { kind: 'seconds', min: 1 },
      'jobs.cron_interval': { kind: 'seconds', min: 1, max: 45 },
    },
  },
  setup(kernel, options = {}) {
    const db = kernel.plugin('database')
    const schema = options.schema ?? 'fw_jobs'
    db.addMigrations([queueTablesMigration(schema)])
    const runtime = new JobsRuntime({ kernel, db, schema })
    for (const job of options.jobs ?? []) runtime.define(job)
    runtime.scheduleAll(options.schedules ?? [])
    jobsInternals.set(runtime, { observers: runtime.observers })
    for (const command of jobCommands) kernel.command(command)
    if (kernel.hasPlugin('debug')) {
      kernel.plugin('debug').project('jobs', jobsProjection)
      serveRuns(kernel, runtime.observers)
    }
    // Every job is defined by boot (options, or `define` in a plugin's setup): a check per queue.
    if (kernel.hasPlugin('health'))
      kernel.hooks.boot.tapPromise('jobs', async () => {
        const health = kernel.plugin('health')
        for (const check of queueChecks(kernel, runtime)) health.register(check)
      })
    if (kernel.hasPlugin('telemetry')) observeInTelemetry(kernel.plugin('telemetry'), runtime)
    // After the HTTP drain, before the database closes (stage 100): running jobs finish or go back.
    kernel.hooks.shutdown.tapPromise({ name: 'jobs', stage: 50 }, () => runtime.close())
    return runtime
  },
})

/**
 * Each run as telemetry projects a request (a span continuing the dispatching request's trace, its
 * duration), and the queue gauges read from `stats()` at each scrape, every defined job's queue
 * included (0 when it holds no job): test/plugins/jobs/telemetry.test.ts.
 */
function observeInTelemetry(telemetry: TelemetryApi, runtime: JobsRuntime): void {
  telemetry.readQueuesFrom(async () => {
    const found = new Map((await runtime.stats()).map((q) => [q.name, q]))
    return [...runtime.definitions().keys()].map(
      (name) => found.get(name) ?? { name, waiting: 0, running: 0, failed: 0 },
    )
  })
  runtime.observers.push((run) =>
    telemetry.recordJobRun({
      context: run.context,
      queue: run.name,
      status: run.status,
      duration: run.duration,
    }),
  )
}

/** Internals other fw plugins reach (debug, telemetry): the run observers. */
export const jobsInternals = new WeakMap<
  JobsApi,
  { observers: Array<(run: FinishedRun) => void> }
>()

export { defineJob } from './define-job.js'
export type { Backoff, JobDefinition, JobSpec } from './define-job.js'
export type { FinishedRun } from './run.js'
export type {
  DispatchOptions,
  JobPayloads,
  JobRun,
  JobsApi,
  JobsOptions,
  QueueStats,
  WorkOptions,
} from './types.js'
export type { FailedJob, JobSummary } from './inspect.js'
export { jobsErrors } from './errors.js'
