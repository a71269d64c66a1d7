// The one order every migration runs in, whoever added it (README.md "Migration order").
import type { MigrationEntry, Migrations } from './migration-types.js'

/** The place of the app's own migrations: after every plugin's. */
export const APP_PLACE = Number.POSITIVE_INFINITY

/**
 * Migrations and who added them: a plugin by its place in the kernel's setup order (where every
 * plugin comes after those it depends on), the app as {@link APP_PLACE}.
 */
export interface PlacedMigrations {
  readonly migrations: Migrations
  readonly place: number
}

/**
 * A name's timestamp, whatever comes before it: `20260101000000_x` and `Migration20260101000000_x`
 * both read `20260101000000_x`. A name without 14 leading digits (after letters) sorts as it is,
 * after every timestamped one (letters sort after digits).
 */
export function timestampKey(name: string): string {
  return name.replace(/^[A-Za-z]*(?=\d{14})/, '')
}

/**
 * Loads every list and orders it: by who added it (plugins in setup order, so a plugin's
 * migrations run before those of the plugins and the app that depend on it; the app's last), then
 * by timestamp, then by name. Guarded by test/plugins/database/migration-order.test.ts.
 */
export async function orderedMigrations(
  placed: readonly PlacedMigrations[],
): Promise<MigrationEntry[]> {
  const loaded = await Promise.all(
    placed.map(async ({ migrations, place }) => {
      const list = typeof migrations === 'function' ? await migrations() : migrations
      return list.map((entry) => ({ entry, place, key: timestampKey(entry.name) }))
    }),
  )
  return loaded
    .flat()
    .sort(
      (x, y) => x.place - y.place || compare(x.key, y.key) || compare(x.entry.name, y.entry.name),
    )
    .map((m) => m.entry)
}

function compare(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0
}
