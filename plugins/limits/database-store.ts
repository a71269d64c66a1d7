import type { DatabaseApi, SqlMigration } from 'fw/plugins/database'
import type { LimitStore, WindowCount } from './store.js'

/**
 * The table the PostgreSQL store counts in, created by the plugin's migration (a plain
 * `SqlMigration`: the database plugin is optional, so nothing of its is loaded from here).
 */
export const limitsMigration: SqlMigration = {
  name: 'Migration20261129080000_create_fw_rate_limits',
  up: [
    `create table "fw_rate_limits" (
      "key" varchar(100) primary key,
      "hits" integer not null,
      "reset_at" bigint not null
    )`,
    'create index "fw_rate_limits_reset_at_index" on "fw_rate_limits" ("reset_at")',
  ],
  down: ['drop table if exists "fw_rate_limits"'],
}

/** How often a process deletes windows that ended (at most; only while it counts). */
const SWEEP_EVERY_MS = 60_000

interface CountRow {
  hits: number
  reset_at: string
  now: string
}

/**
 * Counts in the app's PostgreSQL database, so every instance shares one count. One statement per
 * hit, atomic: `insert … on conflict do update` takes the row's lock, so concurrent hits on any
 * number of instances are added one after another, and a window that has ended restarts in the
 * same statement. Times come from the database's clock, so instances with drifting clocks agree.
 */
export function createDatabaseStore(db: DatabaseApi): LimitStore {
  let sweptAt = 0
  return {
    name: 'postgresql',
    async hit(key, cost, windowMs): Promise<WindowCount> {
      const [row] = await db.sql<CountRow>`
        with clock as (select (extract(epoch from clock_timestamp()) * 1000)::bigint as now)
        insert into "fw_rate_limits" as r ("key", "hits", "reset_at")
        select ${key}, ${cost}::integer, clock.now + ${windowMs}::bigint from clock
        on conflict ("key") do update set
          "hits" = case when r."reset_at" <= (select now from clock)
            then excluded."hits" else r."hits" + excluded."hits" end,
          "reset_at" = case when r."reset_at" <= (select now from clock)
            then excluded."reset_at" else r."reset_at" end
        returning r."hits", r."reset_at", (select now from clock) as now`
      const count = { hits: row!.hits, resetAt: Number(row!.reset_at), now: Number(row!.now) }
      if (count.now - sweptAt > SWEEP_EVERY_MS) {
        sweptAt = count.now
        await db.sql`delete from "fw_rate_limits" where "reset_at" < ${count.now}::bigint`
      }
      return count
    },
  }
}
