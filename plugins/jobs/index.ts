import { definePlugin, type Kernel, type RequestContext } from 'fw'
import type {} from 'fw/plugins/database'
import type {} from 'fw/plugins/logging'
import type PgBoss from 'pg-boss'
import { jobCommands } from './commands.js'
import type { JobDefinition } from './define-job.js'
import { dispatchJob, type Origin } from './dispatch.js'
import { jobsErrors } from './errors.js'
import './events.js'
import { inspector, type Inspector } from './inspect.js'
import { queueTablesMigration } from './migration.js'
import { ensureQueues, openBoss, type QueueSettings } from './queue.js'
import type { FinishedRun } from './run.js'
import { applySchedules, checkSchedule } from './schedules.js'
import type { JobsApi, JobsOptions, ScheduleEntry, WorkOptions } from './types.js'
import { Worker } from './worker.js'

/** What the plugin keeps per process: its two pg-boss instances, opened on first use. */
interface Queues {
  /** Dispatch and inspection: no maintenance, no cron clock. */
  client?: Promise<{ boss: PgBoss; inspect: Inspector }>
  worker?: Worker
  /** Observers of finished runs (debug history, telemetry, metrics). */
  readonly observers: Array<(run: FinishedRun) => void>
}

/**
 * Background jobs and schedules on the app's own PostgreSQL (or PGlite), through pg-boss: jobs
 * defined with `defineJob`, dispatched from handlers, plugins or the CLI (in the caller's
 * transaction when there is one), run by `fw work` or `fw serve --with-worker`, each run an event
 * log like a request's.
 */
export default definePlugin<JobsOptions, JobsApi>({
  name: 'jobs',
  dependsOn: ['database'],
  // The request id a dispatch records comes from the logging plugin, when it is registered.
  optionalDependsOn: ['logging'],
  config: {
    defaults: {
      jobs: {
        poll_interval: 1,
        maintenance_interval: 30,
        drain_timeout: 30,
        backlog_warn: 1000,
        oldest_warn: 300,
      },
    },
    schema: {
      'jobs.poll_interval': { kind: 'seconds', min: 1, max: 60 },
      'jobs.maintenance_interval': { kind: 'seconds', min: 1, max: 3600 },
      'jobs.drain_timeout': { kind: 'seconds', min: 0, max: 86_400 },
      'jobs.backlog_warn': { kind: 'integer', min: 1 },
      'jobs.oldest_warn': { kind: 'seconds', min: 1 },
    },
  },
  setup(kernel, options) {
    const db = kernel.plugin('database')
    const schema = options.schema ?? 'fw_jobs'
    db.addMigrations([queueTablesMigration(schema)])
    const settings: QueueSettings = { kernel, db, schema }
    const definitions = new Map<string, JobDefinition<never>>()
    const schedules = new Map<string, ScheduleEntry & { payload: unknown }>()
    const queues: Queues = { observers: [] }
    const define = <P>(job: JobDefinition<P>): JobDefinition<P> => {
      if (definitions.has(job.name))
        throw jobsErrors.error('FW_ERR_JOBS_DUPLICATE', { name: job.name })
      definitions.set(job.name, job as unknown as JobDefinition<never>)
      return job
    }
    for (const job of options.jobs ?? []) define(job)
    const definitionOf = (job: JobDefinition<unknown> | string) => {
      const name = typeof job === 'string' ? job : job.name
      const found = definitions.get(name)
      if (found === undefined) throw jobsErrors.error('FW_ERR_JOBS_UNKNOWN', { name })
      return found
    }
    const client = () =>
      (queues.client ??= openBoss(settings, false).then(async (boss) => {
        await ensureQueues(boss, definitions.values())
        return { boss, inspect: inspector(boss.getDb() as never, schema) }
      }))
    client.reset = () => (queues.client = undefined)
    const schedule = (cron: string, job: JobDefinition<unknown>, payload: unknown, tz?: string) => {
      const definition = definitionOf(job)
      const entry = { name: definition.name, cron, tz: tz ?? 'UTC', payload }
      checkSchedule(entry)
      schedules.set(definition.name, entry)
    }
    for (const s of options.schedules ?? [])
      schedule(s.cron, s.job as JobDefinition<unknown>, s.payload ?? {}, s.tz)
    const origin = (ctx: RequestContext | undefined): Origin => originOf(ctx)
    const api: JobsApi = {
      define,
      definitions: () => definitions,
      dispatch: async (job: JobDefinition<unknown> | string, payload: unknown, o?: object) => {
        const definition = definitionOf(job)
        const { boss } = await client()
        return dispatchJob(boss, definition, payload, o, origin)
      },
      schedule: (cron, job, payload, o) =>
        schedule(cron, job as JobDefinition<unknown>, payload, o?.tz),
      async work(o: WorkOptions = {}) {
        if (queues.worker !== undefined) return
        const jobs = selected(definitions, o.queues)
        const boss = await openBoss(settings, true)
        await ensureQueues(boss, definitions.values())
        await applySchedules(boss, schedules.values())
        const { inspect } = await client()
        queues.worker = new Worker({
          kernel,
          boss,
          jobs,
          concurrency: o.concurrency,
          pollSeconds: kernel.config.jobs.poll_interval,
          onRun: (run) => notify(kernel, queues.observers, run),
          progress: (id, done, total) => inspect.progress(id, done, total),
        })
        await queues.worker.start()
      },
      async stop(timeoutMs = kernel.config.jobs.drain_timeout * 1000) {
        const worker = queues.worker
        if (worker !== undefined) await worker.stop(timeoutMs)
      },
      get working() {
        return queues.worker !== undefined
      },
      list: async (o) => (await client()).inspect.list(o),
      failed: async (o) => (await client()).inspect.failed(o),
      find: async (id) => (await client()).inspect.find(id),
      async retry(id) {
        const { boss, inspect } = await client()
        const name = await inspect.failedName(id)
        if (name === undefined) return false
        await boss.retry(name, id)
        return true
      },
      stats: async () => (await client()).inspect.stats(),
    }
    jobsInternals.set(api, { observers: queues.observers })
    kernel.readiness.add('jobs', () =>
      queues.worker !== undefined && kernel.readiness.stopping
        ? 'jobs: worker stopping'
        : undefined,
    )
    for (const command of jobCommands) kernel.command(command)
    // After the HTTP drain, before the database closes (stage 100): running jobs finish or go back.
    kernel.hooks.shutdown.tapPromise({ name: 'jobs', stage: 50 }, async () => {
      await api.stop()
      const opened = queues.client
      queues.client = undefined
      if (opened !== undefined)
        await (await opened.catch(() => undefined))?.boss.stop({ graceful: false, wait: true })
    })
    return api
  },
})

/** The jobs a worker runs: every defined one, or those `queues` names (an unknown name fails). */
function selected(
  definitions: ReadonlyMap<string, JobDefinition<never>>,
  queues: readonly string[] | undefined,
): JobDefinition<never>[] {
  if (queues === undefined || queues.length === 0) return [...definitions.values()]
  return queues.map((name) => {
    const found = definitions.get(name)
    if (found === undefined) throw jobsErrors.error('FW_ERR_JOBS_UNKNOWN', { name })
    return found
  })
}

/** The dispatching request's id and trace, as the job's envelope keeps them. */
function originOf(ctx: RequestContext | undefined): Origin {
  if (ctx === undefined) return { request: undefined, traceparent: undefined }
  const traceparent = ctx.headers.traceparent
  return {
    request: ctx.state.requestId,
    traceparent: typeof traceparent === 'string' ? traceparent : undefined,
  }
}

function notify(kernel: Kernel, observers: Array<(run: FinishedRun) => void>, run: FinishedRun) {
  for (const observe of observers) {
    try {
      observe(run)
    } catch (error) {
      kernel.logger.error('jobs: a run observer failed', { error: (error as Error).message })
    }
  }
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
