// What the in-process TechEmpower benchmarks (drivers.ts, orm-reads.ts) share: their options, the
// load's shape, and a database of their own with TechEmpower's tables; techempower.ts takes the
// server from here too.
import { parseArgs } from 'node:util'
import pg from 'pg'
import { createTestDatabase, type TestDatabase } from '../../plugins/database/test-database.js'
import { SCHEMA_STATEMENTS } from './schema.mjs'

/**
 * The options of an in-process benchmark: `--duration` (seconds, default 3), how long each round
 * loads one way, in milliseconds; `--rounds` (default 3), the ways' order rotating. Read when
 * called, so that techempower.ts, with options of its own, can import this module.
 */
export function roundOptions(): { DURATION_MS: number; ROUNDS: number } {
  const { values } = parseArgs({
    options: {
      duration: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
    },
  })
  return { DURATION_MS: Number(values.duration) * 1000, ROUNDS: Number(values.rounds) }
}
/** How many workers load at once, each awaiting its reads in turn. */
export const WORKERS = 64
/** What one round measured: reads a second, and this process's CPU µs per read. */
export interface RoundSample {
  rate: number
  cpu: number
}

/**
 * One round of load: WORKERS workers, each running `turn` (which makes `reads` reads and resolves
 * when they are answered) again and again until `durationMs` have passed.
 */
export async function loadRound(
  durationMs: number,
  reads: number,
  turn: () => Promise<unknown>,
): Promise<RoundSample> {
  const until = performance.now() + durationMs
  let done = 0
  const cpu = process.cpuUsage()
  const started = performance.now()
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      for (; performance.now() < until; done += reads) await turn()
    }),
  )
  const used = process.cpuUsage(cpu)
  const seconds = (performance.now() - started) / 1000
  return { rate: done / seconds, cpu: (used.user + used.system) / done }
}

/** A random id of the `world` table's 10,000 rows. */
export const randomId = (): number => 1 + Math.floor(Math.random() * 10_000)

/**
 * The PostgreSQL server to run on: FW_BENCH_POSTGRES_URL, else DATABASE_URL when it names a
 * PostgreSQL server, else the local one.
 */
export function benchPostgresUrl(): string {
  return (
    process.env.FW_BENCH_POSTGRES_URL ??
    (/^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '')
      ? (process.env.DATABASE_URL as string)
      : 'postgresql://postgres@127.0.0.1:5432/test')
  )
}

/** A database of its own on that server, TechEmpower's tables created and filled (schema.mjs). */
export async function worldDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase({ DATABASE_URL: benchPostgresUrl() })
  try {
    const setup = new pg.Client({ connectionString: db.url })
    await setup.connect()
    for (const statement of SCHEMA_STATEMENTS) await setup.query(statement)
    await setup.end()
    return db
  } catch (error) {
    await db.drop()
    throw error
  }
}
