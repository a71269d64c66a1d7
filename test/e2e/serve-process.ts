// Starts the playground (`fw serve`) as a real process for end-to-end suites.
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { startFw, type FwProcess } from '../fixtures/fw-process.js'

/** A running `fw serve`. */
export type ServedApp = FwProcess

/**
 * Runs `fw serve --port 0` with `env`, resolving once it prints where it listens. `nodeArgs` go
 * to node before the CLI (a preloaded module, say); `serveArgs` replace `--port 0`.
 */
export function servePlayground(
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
  nodeArgs: readonly string[] = [],
  serveArgs: readonly string[] = ['--port', '0'],
): Promise<ServedApp> {
  return startFw({ command: 'serve', args: serveArgs, env, nodeArgs, timeoutMs })
}

/** Several `fw serve` processes on one PostgreSQL database of their own. */
export interface PlaygroundCluster {
  readonly db: TestDatabase
  /** In the order they started: the first is the one that migrated and seeded. */
  readonly apps: readonly ServedApp[]
  /** Stops every process still running, then drops the database. */
  close(): Promise<void>
}

/**
 * `count` processes of the playground (or of the app `env.FW_APP` names) in production mode on a
 * fresh database, with `env` added: the first alone, since it migrates and seeds, then the others
 * together. A start that fails stops those that started and drops the database. The suites whose
 * processes share one database, which PGlite cannot (test/e2e/revocation.test.ts and others).
 */
export async function servePlaygrounds(
  count: number,
  env: NodeJS.ProcessEnv = {},
): Promise<PlaygroundCluster> {
  const db = await createTestDatabase()
  const apps: ServedApp[] = []
  const close = async () => {
    await Promise.all(apps.map((app) => app.stop()))
    await db.drop()
  }
  const served = { DATABASE_URL: db.url, NODE_ENV: 'production', ...env }
  const settled = await Promise.allSettled([servePlayground(served)])
  if (settled[0]!.status === 'fulfilled')
    settled.push(
      ...(await Promise.allSettled(
        Array.from({ length: count - 1 }, () => servePlayground(served)),
      )),
    )
  for (const start of settled) if (start.status === 'fulfilled') apps.push(start.value)
  const failed = settled.find(
    (start): start is PromiseRejectedResult => start.status === 'rejected',
  )
  if (failed !== undefined) {
    await close()
    throw failed.reason
  }
  return { db, apps, close }
}
