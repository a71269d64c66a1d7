import { performance } from 'node:perf_hooks'
import type { Kernel } from 'fw'
import { messageOf } from 'fw'
import { CheckOmitted, result, type HealthCheck } from '../types.js'

/**
 * `database`: runs `select version()` and reports the latency, the driver (`postgresql` or
 * `pglite`) and the server's version; `down` with the error when the query fails (an unreachable
 * server included), and `down` with "connection failed at boot" while an app that started without
 * its database is still waiting for it. When the database never opened (`ready()` rejected: a bad URL, a missing
 * driver, an unusable PGlite directory), that counts as the connection failing at boot: the check
 * leaves the report and drops itself from the registry (README.md "Built-in checks": omitted).
 * Its `open` opens and connects first, so that `fw health:check` (a process whose database is not
 * open yet) does not count that against the timeout (test/plugins/health/cli-database.test.ts).
 */
export function databaseCheck(kernel: Kernel): HealthCheck {
  /** Why `open` found no database: reported by `run`, which then opens nothing (creates nothing). */
  let missing: unknown
  return {
    name: 'database',
    async open() {
      const db = kernel.plugin('database')
      if (db.availability().state === 'waiting') return
      try {
        await db.assertExists()
      } catch (error) {
        missing = error
        return
      }
      await db.ready()
      await db.orm.checkConnection()
    },
    async run() {
      const db = kernel.plugin('database')
      // Unreachable when the app started, and not yet back: down at once, without another try
      // (the plugin retries in the background).
      const availability = db.availability()
      if (availability.state === 'waiting') {
        return result(
          'down',
          'database',
          `connection failed at boot: ${availability.error ?? 'unreachable'}`,
          { driver: db.target.kind, attempts: availability.attempts },
        )
      }
      if (missing !== undefined)
        return result('down', 'database', messageOf(missing), { driver: db.target.kind })
      try {
        await db.ready()
      } catch (error) {
        kernel.logger.warn('health: the database never opened; the database check is dropped', {
          error,
        })
        throw new CheckOmitted(`the database did not open: ${messageOf(error)}`)
      }
      try {
        // Connecting (PGlite's first start takes a second or more) is not the round trip; nor
        // does the check create a missing database, as `orm.connect()` would.
        if (!(await db.orm.isConnected())) await db.orm.checkConnection()
        const started = performance.now()
        const rows = await db.orm.em
          .getConnection()
          .execute<{ version: string }[]>('select version() as version')
        const latency = Math.round((performance.now() - started) * 100) / 100
        const version = String(rows[0]?.version ?? 'unknown')
        const short = /^(PostgreSQL [\d.]+)/.exec(version)?.[1] ?? version
        return result('ok', 'database', `${short} (${db.target.kind}) answered in ${latency} ms`, {
          latency_ms: latency,
          driver: db.target.kind,
          server_version: version,
        })
      } catch (error) {
        return result('down', 'database', `database unreachable: ${messageOf(error)}`, {
          driver: db.target.kind,
        })
      }
    },
  }
}
