// The playground's background jobs: the product import's job, the jobs plugin registered when
// pg-boss is installed (an optional peer of fw: a plugin author trying `fw/playground` may not
// have it), and a worker in the serving process where nothing else could run the jobs.
import { createRequire } from 'node:module'
import { carryOver, definePlugin, type Kernel } from 'fw'
import jobs, { defineJob } from 'fw/plugins/jobs'
import type { ImportPayload } from './run-import.js'

/** The product import's job name (its queue). */
export const IMPORT_JOB = 'products.import'

/** Attempts after the first: a database that went away may be back. */
const IMPORT_RETRIES = 2

/**
 * One job per uploaded CSV. The work (and the CSV parser) is imported when a run begins; retried
 * twice, two seconds apart, resuming after the last committed batch (./run-import.ts).
 */
export const productImport = defineJob(IMPORT_JOB, {
  retries: IMPORT_RETRIES,
  backoff: 2,
  timeout: 600,
  handler: async (payload: ImportPayload, run) => {
    const { runImport } = await import('./run-import.js')
    await runImport(run.context.kernel, payload, run, { lastAttempt: run.attempt > IMPORT_RETRIES })
  },
})

/** The packages imports need, with the versions fw declares for them. */
const NEEDED = { 'pg-boss': '^10.4.2', 'csv-parse': '^7.0.3' } as const

/**
 * The packages imports need that this install lacks (resolved, not loaded: cheap at boot), as
 * `name@range`, for the import page's install line.
 */
export function missingPackages(): string[] {
  const require = createRequire(import.meta.url)
  return Object.entries(NEEDED)
    .filter(([name]) => {
      try {
        require.resolve(name)
        return false
      } catch {
        return true
      }
    })
    .map(([name, range]) => `${name}@${range}`)
}

/** Where the carry-over of `fw dev` keeps the build whose worker runs (one per process). */
const WORKER_OWNER = 'playground.jobs-worker'

/**
 * Starts the jobs plugin's worker in the serving process once the database is migrated (its
 * `listen` tap, after the database's): in development, and on PGlite, whose database no other
 * process can open. On PostgreSQL in production, `fw serve --with-worker` or `fw work` run them.
 * Under `fw dev` the newest build's worker replaces the one before (the first build stays open
 * holding the socket): jobs run the code last saved.
 */
const inProcessWorker = definePlugin({
  name: 'playground.jobs',
  dependsOn: ['database', 'jobs'],
  setup(kernel) {
    kernel.hooks.listen.tapPromise({ name: 'playground.jobs', stage: 10 }, async () => {
      const db = kernel.plugin('database')
      if (!kernel.config.development && db.target.kind !== 'pglite') return
      await kernel.plugin('jobs').work()
      const kept = carryOver()
      if (kept === undefined) return
      const previous = kept.get<Kernel>(WORKER_OWNER)
      kept.set(WORKER_OWNER, kernel, async () => undefined)
      // Its running import finishes (or goes back to the queue) while this build serves.
      if (previous !== undefined && previous !== kernel)
        previous
          .plugin('jobs')
          .stop()
          .catch((error: unknown) =>
            kernel.logger.error('playground: the previous build’s worker did not stop', { error }),
          )
    })
  },
})

/**
 * Registers the jobs plugin with the playground's jobs, and the in-process worker, when pg-boss
 * is installed; without it, nothing (the import page says what to install).
 */
export function registerJobs(kernel: Kernel): void {
  if (missingPackages().some((p) => p.startsWith('pg-boss@'))) return
  kernel.register(jobs, { jobs: [productImport] }).register(inProcessWorker)
}
