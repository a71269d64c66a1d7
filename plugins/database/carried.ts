// Under `fw dev` the app is built again after an edit, in the same process: the database opened by
// the first build is carried over to the next ones (docs/dev.md), so an in-memory PGlite keeps its
// rows and a PostgreSQL pool its connections.
import type { CarryOver } from 'fw'
import type { DatabaseTarget } from './connection-url.js'
import { isUnwritten } from './migration.js'
import type { MigrationObject } from './migration-types.js'
import type { AnyEntitySchema, OpenedDatabase } from './orm.js'
import type { EmbeddedDatabase } from './pglite-thread.js'

interface CarriedDatabase {
  /** Which entity declarations and migration names the ORM was built for. */
  readonly signature: string
  readonly db: OpenedDatabase
}

const ids = new WeakMap<object, number>()
let nextId = 0

/**
 * The entities by identity (an unchanged module is not imported again, so its schemas are the same
 * objects) and the migrations by name (a definition is made anew on every build), and whether each
 * is written yet.
 */
function signatureOf(
  entities: readonly AnyEntitySchema[],
  migrations: readonly MigrationObject[],
): string {
  const idOf = (schema: object): number => {
    let id = ids.get(schema)
    if (id === undefined) ids.set(schema, (id = ++nextId))
    return id
  }
  // A migration not written yet counts apart: once its SQL is saved, the next build migrates.
  const nameOf = (m: MigrationObject): string => (isUnwritten(m) ? `${m.name}?` : m.name)
  return `${entities.map(idOf).join(',')}|${migrations.map(nameOf).join(',')}`
}

function keyOf(target: DatabaseTarget): string {
  return target.kind === 'pglite'
    ? `fw.database:pglite:${target.dataDir ?? 'memory'}`
    : `fw.database:${target.url}`
}

/** True when an earlier build opened this database: no new embedded instance is started. */
export function hasCarried(carry: CarryOver, target: DatabaseTarget): boolean {
  return carry.get<CarriedDatabase>(keyOf(target)) !== undefined
}

/**
 * The database of an earlier build when it was opened for the same entities and migrations
 * (`reused`: connected already); else a new ORM from `open`, on the earlier build's embedded
 * instance when there is one (its data kept), the earlier ORM closed. Kept for the next build.
 */
export async function openCarried(
  carry: CarryOver,
  target: DatabaseTarget,
  entities: readonly AnyEntitySchema[],
  migrations: readonly MigrationObject[],
  open: (embedded: Promise<EmbeddedDatabase> | undefined) => Promise<OpenedDatabase>,
): Promise<{ db: OpenedDatabase; reused: boolean }> {
  const key = keyOf(target)
  const signature = signatureOf(entities, migrations)
  const earlier = carry.get<CarriedDatabase>(key)
  if (earlier?.signature === signature) return { db: earlier.db, reused: true }
  const embedded = await earlier?.db.close(true)
  const db = await open(embedded === undefined ? undefined : Promise.resolve(embedded))
  carry.set<CarriedDatabase>(key, { signature, db }, async () => void (await db.close()))
  return { db, reused: false }
}
