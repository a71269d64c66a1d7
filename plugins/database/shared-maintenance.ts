// Maintenance seen by every instance on one PostgreSQL database: `fw down` / `fw up` write the
// state into `fw_maintenance` and announce it on the channel of the same name; each serving
// instance hears it (LISTEN, through the plugin's notifications connection) and answers its next
// request accordingly. Reconnecting, an instance reads the row again (a notification sent while it
// was not listening is lost). On PGlite the flag file stays the only mechanism: one process.
import type { Kernel, MaintenanceStore } from 'fw'
import type { DatabaseApi } from './types.js'

const CHANNEL = 'fw_maintenance'

/**
 * The table, made by the first `fw down` rather than by a migration: an app that never goes down
 * this way has no table and none in its migration list. Until it exists, the app is up.
 */
const TABLE = `create table if not exists "fw_maintenance" (
  "id" smallint primary key default 1 check ("id" = 1),
  "retry_after" int not null,
  "since" timestamptz not null default now()
)`
/** SQLSTATE undefined_table: no `fw down` ever ran here. */
const NO_TABLE = '42P01'

/** A notification's payload: retry-after seconds while down, `up` when up. */
function parse(payload: string): number | undefined {
  return /^\d{1,7}$/.test(payload) ? Number(payload) : undefined
}

/** Shares the app's maintenance state through the database (PostgreSQL only). */
export function shareMaintenance(kernel: Kernel, api: DatabaseApi): void {
  const read = async (): Promise<number | undefined> => {
    let rows: Record<string, unknown>[]
    try {
      // Listening may come before anything opened the database (`prepareOnListen: false`).
      await api.ready()
      rows = await api.runStatement({
        sql: 'select "retry_after" from "fw_maintenance" where "id" = 1',
        bindings: [],
      })
    } catch (error) {
      if ((error as { failure?: { sqlState?: string } }).failure?.sqlState === NO_TABLE)
        return undefined
      throw error
    }
    const value = rows[0]?.retry_after
    return value === undefined || value === null ? undefined : Number(value)
  }
  const store: MaintenanceStore = {
    description: 'the database',
    async write(retryAfter) {
      await api.ready()
      await api.runStatement({ sql: TABLE, bindings: [] })
      if (retryAfter === undefined)
        await api.runStatement({ sql: 'delete from "fw_maintenance" where "id" = 1', bindings: [] })
      else
        await api.runStatement({
          sql: `insert into "fw_maintenance" ("id", "retry_after", "since") values (1, ?, now())
                on conflict ("id") do update set "retry_after" = excluded."retry_after", "since" = now()`,
          bindings: [retryAfter],
        })
      await api.notify(CHANNEL, retryAfter === undefined ? 'up' : String(retryAfter))
    },
  }
  kernel.maintenance.useStore(store)
  // Serving: listen for changes, and read the state whenever listening (re)starts.
  kernel.hooks.listen.tapPromise({ name: 'database', stage: 10 }, async () => {
    const refresh = (): void => {
      read().then(
        (value) => kernel.maintenance.share(value),
        (error: unknown) =>
          kernel.logger.warn('database: reading the shared maintenance state failed', {
            error: error instanceof Error ? error.name : 'error',
          }),
      )
    }
    api.subscribe(
      CHANNEL,
      (payload) => kernel.maintenance.share(parse(payload)),
      (listening) => {
        if (listening) refresh()
      },
    )
    refresh()
  })
}
