import type { SqlExecutor } from './sql-executor.js'

// Reading the queue's tables for the commands, metrics and health: plain SQL on pg-boss's schema
// (`job`: waiting, running, failed and recent jobs; completed and failed ones move to `archive`
// later), bound parameters only.

/** One queue's counts (metrics, health). */
export interface QueueStats {
  readonly name: string
  readonly waiting: number
  readonly running: number
  readonly failed: number
  readonly completed: number
  /** Seconds the oldest job that may run now has waited; 0 when none waits. */
  readonly oldestWaitingSeconds: number
}

/** One job as `fw jobs:list` shows it. */
export interface JobSummary {
  readonly id: string
  readonly name: string
  /** pg-boss's state: `created` (waiting), `retry`, `active`, `completed`, `cancelled`, `failed`. */
  readonly state: string
  /** Attempts begun so far. */
  readonly attempts: number
  readonly createdAt: string
  readonly startAfter: string
  readonly completedAt: string | null
  /** The key it was dispatched with, if any. */
  readonly key: string | null
  /** While it runs, what `run.progress()` last recorded. */
  readonly progress: { done: number; total: number | null } | null
}

/** A failed job: its error and attempts (`fw jobs:failed`). */
export interface FailedJob extends JobSummary {
  readonly error: string
  readonly payload: unknown
}

/** The states a job can be in, as `--state` takes them. */
export const JOB_STATES = [
  'created',
  'retry',
  'active',
  'completed',
  'cancelled',
  'failed',
] as const

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** True when `id` is a job id's shape (a UUID): anything else is refused before any query. */
export const isJobId = (id: string): boolean => UUID.test(id)

interface JobRow {
  id: string
  name: string
  state: string
  retry_count: number
  started_on: Date | null
  created_on: Date
  start_after: Date
  completed_on: Date | null
  singleton_key: string | null
  output: Record<string, unknown> | null
  data: { payload?: unknown } | null
}

const iso = (d: Date | string | null): string | null =>
  d === null ? null : new Date(d).toISOString()

function summaryOf(row: JobRow): JobSummary {
  const progress = row.state === 'active' ? (row.output?.progress as JobSummary['progress']) : null
  return {
    id: row.id,
    name: row.name,
    state: row.state,
    attempts: row.retry_count + (row.started_on === null ? 0 : 1),
    createdAt: iso(row.created_on)!,
    startAfter: iso(row.start_after)!,
    completedAt: iso(row.completed_on),
    key: row.singleton_key,
    progress: progress ?? null,
  }
}

const COLUMNS =
  'id, name, state, retry_count, started_on, created_on, start_after, completed_on, singleton_key, output'

/** What the commands and the API read, over one executor on the queue's schema. */
export function inspector(db: SqlExecutor, schema: string) {
  const table = `"${schema}".job`
  const rows = async (sql: string, values: unknown[]) =>
    (await db.executeSql(sql, values)).rows as JobRow[]
  return {
    async list(o: { state?: string; name?: string; limit?: number } = {}): Promise<JobSummary[]> {
      const found = await rows(
        `select ${COLUMNS} from ${table}
          where ($1::text is null or state::text = $1) and ($2::text is null or name = $2)
          and name not like '\\_\\_pgboss\\_\\_%'
          order by created_on desc, id limit $3`,
        [o.state ?? null, o.name ?? null, o.limit ?? 50],
      )
      return found.map(summaryOf)
    },
    async failed(o: { limit?: number } = {}): Promise<FailedJob[]> {
      const found = await rows(
        `select ${COLUMNS}, data from ${table} where state = 'failed'
          order by completed_on desc nulls last, id limit $1`,
        [o.limit ?? 50],
      )
      return found.map((row) => ({
        ...summaryOf(row),
        error: String(row.output?.message ?? row.output?.value ?? 'unknown error'),
        payload: row.data?.payload,
      }))
    },
    async find(id: string): Promise<JobSummary | undefined> {
      if (!isJobId(id)) return undefined
      const [row] = await rows(`select ${COLUMNS} from ${table} where id = $1::uuid`, [id])
      return row === undefined ? undefined : summaryOf(row)
    },
    async failedName(id: string): Promise<string | undefined> {
      if (!isJobId(id)) return undefined
      const [row] = await rows(
        `select name from ${table} where id = $1::uuid and state = 'failed'`,
        [id],
      )
      return row?.name
    },
    async progress(id: string, done: number, total: number | undefined): Promise<void> {
      await db.executeSql(
        `update ${table} set output = jsonb_build_object('progress',
           jsonb_build_object('done', $2::int, 'total', $3::int))
         where id = $1::uuid and state = 'active'`,
        [id, done, total ?? null],
      )
    },
    async stats(): Promise<QueueStats[]> {
      const found = (
        await db.executeSql(
          `select name,
            count(*) filter (where state in ('created', 'retry'))::int as waiting,
            count(*) filter (where state = 'active')::int as running,
            count(*) filter (where state = 'failed')::int as failed,
            count(*) filter (where state = 'completed')::int as completed,
            coalesce(extract(epoch from now() - min(start_after)
              filter (where state in ('created', 'retry') and start_after <= now())), 0)::float8
              as oldest
          from ${table} where name not like '\\_\\_pgboss\\_\\_%' group by name order by name`,
          [],
        )
      ).rows as Array<Omit<QueueStats, 'oldestWaitingSeconds'> & { oldest: number }>
      return found.map(({ oldest, ...counts }) => ({ ...counts, oldestWaitingSeconds: oldest }))
    },
  }
}

/** The inspector's type. */
export type Inspector = ReturnType<typeof inspector>
