import { randomBytes } from 'node:crypto'

/** A database of a test suite's own. */
export interface TestDatabase {
  /** Its URL, for the database plugin's `url` option or `DATABASE_URL`. */
  readonly url: string
  /** Drops it (a no-op for PGlite in memory). */
  drop(): Promise<void>
}

/**
 * A database for one test suite: with `DATABASE_URL` set to a PostgreSQL server, a fresh database
 * created there (and dropped by `drop()`), so suites never see each other's rows; otherwise
 * embedded PGlite in memory.
 *
 * @example
 * const db = await createTestDatabase()
 * kernel.register(database, { url: db.url, entities })
 * test.after(() => db.drop())
 */
export async function createTestDatabase(
  env: NodeJS.ProcessEnv = process.env,
): Promise<TestDatabase> {
  const base = env.DATABASE_URL
  if (base === undefined || !/^postgres(ql)?:\/\//i.test(base))
    return { url: 'pglite://memory', drop: async () => {} }
  const { default: pg } = await import('pg')
  const name = `fw_test_${randomBytes(6).toString('hex')}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  try {
    await admin.query(`create database "${name}"`)
  } finally {
    await admin.end()
  }
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const client = new pg.Client({ connectionString: base })
      await client.connect()
      try {
        await client.query(`drop database if exists "${name}" with (force)`)
      } finally {
        await client.end()
      }
    },
  }
}
