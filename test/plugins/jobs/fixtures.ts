// The jobs plugin's test fixture: a kernel with the database and jobs plugins on a database of the
// suite's own (PGlite in memory, or a fresh PostgreSQL database with DATABASE_URL), migrated.
import database, { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import jobs, { type JobDefinition, type JobsApi } from 'fw/plugins/jobs'
import { createTestKernel } from 'fw/testing'

export interface JobsHarness {
  readonly kernel: ReturnType<typeof createTestKernel>
  readonly db: TestDatabase
  close(): Promise<void>
}

/** Boots and migrates a kernel that defines `definitions`; `close()` stops it and drops the database. */
export async function jobsKernel(
  definitions: readonly JobDefinition<never>[],
  db?: TestDatabase,
): Promise<JobsHarness> {
  const database_ = db ?? (await createTestDatabase())
  const kernel = createTestKernel({
    plugins: [
      [database, { url: database_.url, entities: [] }],
      [jobs, { jobs: definitions }],
    ],
    config: { jobs: { poll_interval: 1, maintenance_interval: 1 } },
  })
  await kernel.boot()
  await kernel.plugin('database').prepare()
  return {
    kernel,
    db: database_,
    async close() {
      await kernel.close()
      if (db === undefined) await database_.drop()
    },
  }
}

/**
 * Runs `use` with the jobs plugin of a kernel that defines `definitions` (as {@link jobsKernel}),
 * then closes that kernel and drops its database whether `use` passed or threw. A job still
 * running must be let finish before `use` returns: close() waits for it (run-api.test.ts keeps
 * its own `finally` for that reason).
 */
export async function withJobs(
  definitions: readonly JobDefinition<never>[],
  use: (jobs: JobsApi, harness: JobsHarness) => Promise<void>,
): Promise<void> {
  const harness = await jobsKernel(definitions)
  try {
    await use(harness.kernel.plugin('jobs'), harness)
  } finally {
    await harness.close()
  }
}

/** Resolves once `check()` holds, polling every 50 ms; rejects after `ms`, naming `what`. */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 20_000,
) {
  const until = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))
