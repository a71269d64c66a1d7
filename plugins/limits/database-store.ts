import type { DatabaseApi, SqlMigration } from 'fw/plugins/database'
import type { LeasedCount, LimitStore } from './store.js'

/**
 * The table the PostgreSQL store counts in, created by the plugin's migrations (plain
 * `SqlMigration`s: the database plugin is optional, so nothing of its is loaded from here).
 */
export const limitsMigrations: readonly SqlMigration[] = [
  {
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
  },
  {
    // `leased`: what the row's last statement granted. `fw_rate_limit_grant`: the lease rule, a
    // share of what remains once `counted` is, and none when that share is under 2 points, so a
    // window near its end counts hit by hit (README.md "Leases").
    name: 'Migration20261129150000_lease_fw_rate_limits',
    up: [
      'alter table "fw_rate_limits" add column "leased" integer not null default 0',
      `create function fw_rate_limit_grant(points integer, counted integer, want integer)
        returns integer language sql immutable as
        $$ select case when (points - counted) / 8 >= 2 then least(want, (points - counted) / 8)
          else 0 end $$`,
    ],
    down: [
      'drop function if exists fw_rate_limit_grant(integer, integer, integer)',
      'alter table "fw_rate_limits" drop column if exists "leased"',
    ],
  },
]

/** How often a process deletes windows that ended (at most; only while it counts). */
const SWEEP_EVERY_MS = 60_000

interface CountRow {
  hits: number
  reset_at: string
  leased: number
  now: string
}

/**
 * Counts in the app's PostgreSQL database, so every instance shares one count. One statement per
 * hit (or lease), atomic: `insert … on conflict do update` takes the row's lock, so concurrent hits
 * on any number of instances are added one after another, a window that has ended restarts in the
 * same statement, and a lease is granted from the count as it is under that lock. Times come from
 * the database's clock, so instances with drifting clocks agree.
 */
export function createDatabaseStore(db: DatabaseApi): LimitStore {
  let sweptAt = 0
  const take = async (
    key: string,
    cost: number,
    windowMs: number,
    ask: { points: number; want: number },
  ): Promise<LeasedCount> => {
    const [row] = await db.sql<CountRow>`
      with clock as (select (extract(epoch from clock_timestamp()) * 1000)::bigint as now)
      insert into "fw_rate_limits" as r ("key", "hits", "reset_at", "leased")
      select ${key}, ${cost}::integer + g.n, clock.now + ${windowMs}::bigint, g.n
      from clock, fw_rate_limit_grant(${ask.points}::integer, ${cost}::integer,
        ${ask.want}::integer) as g(n)
      on conflict ("key") do update set
        "hits" = case when r."reset_at" <= (select now from clock) then 0 else r."hits" end
          + ${cost}::integer + fw_rate_limit_grant(${ask.points}::integer,
            case when r."reset_at" <= (select now from clock) then 0 else r."hits" end
              + ${cost}::integer, ${ask.want}::integer),
        "leased" = fw_rate_limit_grant(${ask.points}::integer,
          case when r."reset_at" <= (select now from clock) then 0 else r."hits" end
            + ${cost}::integer, ${ask.want}::integer),
        "reset_at" = case when r."reset_at" <= (select now from clock)
          then excluded."reset_at" else r."reset_at" end
      returning r."hits", r."reset_at", r."leased", (select now from clock) as now`
    const count = {
      hits: row!.hits,
      resetAt: Number(row!.reset_at),
      leased: row!.leased,
      now: Number(row!.now),
    }
    if (count.now - sweptAt > SWEEP_EVERY_MS) {
      sweptAt = count.now
      await db.sql`delete from "fw_rate_limits" where "reset_at" < ${count.now}::bigint`
    }
    return count
  }
  return {
    name: 'postgresql',
    take,
    hit: (key, cost, windowMs) => take(key, cost, windowMs, { points: 0, want: 0 }),
    async giveBack(key, points, resetAt) {
      await db.sql`
        update "fw_rate_limits" set "hits" = "hits" - ${points}::integer
        where "key" = ${key} and "reset_at" = ${resetAt}::bigint`
    },
  }
}
