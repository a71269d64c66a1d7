import { performance } from 'node:perf_hooks'
import { carryOver, type FwError, type Logger } from 'fw'
import { isUnavailableError, retryUntilReady, type Availability } from './availability.js'
import { hasCarried, openCarried } from './carried.js'
import { takeEarlyEmbedded } from './early-embedded.js'
import { schemaOf, type EntityDeclaration } from './deferred-entity.js'
import type { DatabaseTarget } from './connection-url.js'
import { summaryOf } from './error-summary.js'
import { databaseErrors } from './errors.js'
import { APP_PLACE, orderedMigrations, type PlacedMigrations } from './migration-order.js'
import type { MigrationObject, MigrationState, Migrations, Seed } from './migration-types.js'
import type { DatabaseTimeouts, OpenedDatabase } from './orm.js'
import type { PrepareResult } from './prepare.js'
import type * as SerializeModuleNs from './serialize.js'

/** What a {@link DatabaseLifecycle} is made of. */
export interface LifecycleOptions {
  readonly target: DatabaseTarget
  readonly timeouts: DatabaseTimeouts
  /** PGlite in a worker thread (`database.pglite_worker`, default true): see pglite-thread.ts. */
  readonly embeddedInWorker?: boolean
  readonly entities?: readonly EntityDeclaration[]
  readonly migrations?: Migrations
  readonly seed?: Seed
  /** Where the lifecycle reports a start without the database, the retries and the driver. */
  readonly logger: Pick<Logger, 'info' | 'warn' | 'error'>
  /**
   * Whether a PostgreSQL database that does not exist is created on connecting (default true);
   * false in production: the start fails naming it (database-exists.ts `ensureDatabase`).
   */
  readonly createsDatabase?: boolean
  /** Hears how long connecting took, once (the kernel's `db-connect` boot phase). */
  readonly onConnected?: (ms: number) => void
  /**
   * True while a request is running: a request that reaches for the database while a start that
   * found none still waits for it answers 503; the background retries are no request.
   */
  readonly inRequest?: () => boolean
}

type SerializeModule = typeof SerializeModuleNs

/**
 * The database's life in one process: what it is made of (entities, migrations, seeds: added
 * until it starts opening), opening it (MikroORM, its drivers and PGlite, loaded on first need),
 * connecting, preparing it (migrations and seeds under the advisory lock), retrying in the
 * background when a start finds it unreachable, the state `availability()` reports, and closing.
 * The plugin's `index.ts` wires it to the kernel's hooks; a test can drive it alone.
 */
export class DatabaseLifecycle {
  readonly target: DatabaseTarget
  readonly #options: LifecycleOptions
  readonly #entities: EntityDeclaration[]
  readonly #migrations: PlacedMigrations[]
  readonly #seeds: Seed[]
  #availability: Availability = { state: 'ready', error: undefined, attempts: 0 }
  #db: OpenedDatabase | undefined
  #serialize: SerializeModule | undefined
  #opening: Promise<void> | undefined
  /** The embedded database this lifecycle started opening, if any (awaited by {@link connect}). */
  #embedded: Promise<unknown> | undefined
  /** True once a round trip succeeded since the driver started (a retry checks again). */
  #connected = false
  /** True once `orm.connect()` built knex's pool: never twice (a retry checks that pool). */
  #driverStarted = false
  #migrationStates: readonly MigrationState[] = []
  /** Under `fw dev`: the database outlives this build of the app (carried.ts). */
  readonly #carry = carryOver()
  /** The migrations' state an earlier build read, when it handed over its database as it was. */
  #carriedMigrations: readonly MigrationState[] | undefined

  constructor(options: LifecycleOptions) {
    this.target = options.target
    this.#options = options
    this.#entities = [...(options.entities ?? [])]
    this.#migrations = options.migrations
      ? [{ migrations: options.migrations, place: APP_PLACE }]
      : []
    this.#seeds = options.seed ? [options.seed] : []
  }

  /** The entities so far (every plugin's, once setup is over). */
  get entities(): readonly EntityDeclaration[] {
    return this.#entities
  }

  addEntities(entities: readonly EntityDeclaration[]): void {
    this.#refuseLate('addEntities')
    this.#entities.push(...entities)
  }

  /** Adds migrations; `place`: who adds them (migration-order.ts), the app's by default. */
  addMigrations(migrations: Migrations, place = APP_PLACE): void {
    this.#refuseLate('addMigrations')
    this.#migrations.push({ migrations, place })
  }

  addSeed(seed: Seed): void {
    this.#refuseLate('addSeed')
    this.#seeds.push(seed)
  }

  /** Whether the app could reach its database (see `Availability`). */
  availability(): Availability {
    return this.#availability
  }

  /** The open database, or undefined before {@link open} resolved. */
  get current(): OpenedDatabase | undefined {
    return this.#db
  }

  /**
   * The open database; throws `FW_ERR_DATABASE_UNAVAILABLE` to a request while a start that found
   * no database waits for it, `FW_ERR_DATABASE_NOT_READY` before {@link open} resolved.
   */
  opened(): OpenedDatabase {
    if (this.#availability.state === 'waiting' && this.#options.inRequest?.() === true)
      throw databaseErrors.error('FW_ERR_DATABASE_UNAVAILABLE')
    if (this.#db === undefined) throw databaseErrors.error('FW_ERR_DATABASE_NOT_READY')
    return this.#db
  }

  /** An entity's data export (`serialize.ts`); the database must be open. */
  toData(entity: object): Record<string, unknown> {
    const db = this.opened()
    return this.#serialize!.toData(db.orm, entity)
  }

  /**
   * Opens the database (MikroORM, its drivers and PGlite load here, on first need, never for
   * commands that only boot the app) without connecting; idempotent: every caller shares one
   * opening.
   */
  open(): Promise<void> {
    return (this.#opening ??= this.#open())
  }

  async #open(): Promise<void> {
    const { target } = this
    // PGlite's start (WASM compiled on V8's background threads, the data directory read or
    // created) overlaps with loading MikroORM and knex on the main thread: opening means a
    // query is coming, so the embedded database is needed anyway.
    const carry = this.#carry
    // Under `fw dev`, the one it started opening before the app loaded (early-embedded.ts).
    const opening = {
      statementMs: this.#options.timeouts.statementMs,
      inWorker: this.#options.embeddedInWorker !== false,
    }
    const pglite =
      target.kind === 'pglite' && (carry === undefined || !hasCarried(carry, target))
        ? (takeEarlyEmbedded(target, opening) ??
          import('./pglite-thread.js').then((m) => m.openEmbedded(target.dataDir, opening)))
        : undefined
    // Without this, a failure would be unhandled until the first connection awaits it.
    pglite?.catch(() => undefined)
    this.#embedded = pglite
    const [{ openDatabase }, { migrationObjectOf }, serializer] = await Promise.all([
      import('./orm.js'),
      import('./migration.js'),
      import('./serialize.js'),
    ])
    let loaded: MigrationObject[]
    try {
      loaded = (await orderedMigrations(this.#migrations)).map(migrationObjectOf)
    } catch (error) {
      // A migration that cannot run (or cannot be loaded) fails the opening, and the embedded
      // database started for it closes: its worker thread would keep the process alive
      // (test/plugins/database/migration-runner.test.ts, the foreign class).
      await pglite?.then(
        (embedded) => embedded.close(),
        () => undefined,
      )
      throw error
    }
    const logger = this.#options.logger
    // A deferred entity's schema (and with it `@mikro-orm/core`) is built here, on opening.
    const schemas = this.#entities.map(schemaOf)
    const openWith = (starting: typeof pglite) =>
      openDatabase(target, schemas, loaded, {
        starting,
        timeouts: this.#options.timeouts,
        warn: (message) => logger.warn(`database driver: ${message}`),
        embeddedInWorker: this.#options.embeddedInWorker !== false,
      })
    if (carry === undefined) this.#db = await openWith(pglite)
    else {
      const carried = await openCarried(carry, target, schemas, loaded, (embedded) =>
        openWith(embedded ?? pglite),
      )
      this.#db = carried.db
      this.#driverStarted = carried.reused
      this.#carriedMigrations = carried.reused ? migrationsSeen.get(carried.db) : undefined
    }
    this.#serialize = serializer
  }

  /** Opens and makes sure a round trip works (the first one builds knex's pool). */
  async connect(): Promise<void> {
    await this.open()
    if (this.#connected) return
    const started = performance.now()
    const orm = this.#db!.orm
    // The embedded database's start (seconds on a loaded machine, in its thread) is not part of
    // knex's first acquire, whose timeout it would otherwise eat.
    await this.#embedded
    if (!this.#driverStarted) {
      // Once only: each `connect()` builds a new knex pool. A retry after a failure checks the
      // connection of the pool built here, which reconnects by itself.
      await this.#ensureDatabase()
      this.#driverStarted = true
      await orm.connect()
    } else {
      await this.check()
    }
    this.#connected = true
    this.#options.onConnected?.(performance.now() - started)
  }

  /** Creates a missing PostgreSQL database, with a line saying so, unless it must not. */
  async #ensureDatabase(): Promise<void> {
    const { target } = this
    if (target.kind !== 'postgresql') return
    const { ensureDatabase, serverOf } = await import('./database-exists.js')
    const created = await ensureDatabase(target, {
      create: this.#options.createsDatabase !== false,
      connectTimeoutMs: this.#options.timeouts.acquireMs,
    })
    if (created)
      this.#options.logger.info(
        `database ${JSON.stringify(target.dbName)} did not exist on ${serverOf(target.url)}: created it`,
      )
  }

  /** One round trip; throws when it fails. */
  async check(): Promise<void> {
    const check = await this.opened().orm.checkConnection()
    if (!check.ok) throw check.error ?? new Error(check.reason)
  }

  /** Every seed in the order added, as one (answers whether any wrote); undefined without seeds. */
  get seed(): Seed | undefined {
    const seeds = this.#seeds
    if (seeds.length === 0) return undefined
    return async (em) => {
      let wrote = false
      for (const run of seeds) wrote = (await run(em)) || wrote
      return wrote
    }
  }

  /** Runs pending migrations and (unless `seed: false`) the seeds under the advisory lock. */
  async prepare(options: { seed?: boolean } = {}): Promise<PrepareResult> {
    await this.connect()
    const { prepareDatabase } = await import('./prepare.js')
    const result = await prepareDatabase(
      this.#db!.orm,
      this.#db!.migrations,
      this.target,
      options.seed === false ? undefined : this.seed,
      this.#options.timeouts.acquireMs,
    )
    await this.readMigrations()
    return result
  }

  /**
   * Executed and pending migration names, read without creating the migrations table. Connecting
   * creates a PostgreSQL database that does not exist (MikroORM's `ensureDatabase`): the API's
   * `status()` makes sure it exists first (migration-api.ts).
   */
  async status(): Promise<{ executed: string[]; pending: string[]; unwritten?: string[] }> {
    await this.connect()
    const states = await this.readMigrations()
    const names = (ran: boolean) =>
      states.filter((m) => (m.executed_at !== null) === ran).map((m) => m.name)
    const unwritten = states.filter((m) => m.unwritten === true).map((m) => m.name)
    const result = { executed: names(true), pending: names(false) }
    return unwritten.length === 0 ? result : { ...result, unwritten }
  }

  /** Every migration with its state, as last read by {@link prepare} or {@link readMigrations}. */
  migrations(): readonly MigrationState[] {
    return this.#migrationStates
  }

  /**
   * {@link prepare}, as a start does it: a database that cannot be reached does not fail it. The
   * lifecycle turns `waiting`, logs a warning and retries in the background (connect, migrate,
   * seed) until it is `ready` again or closed. Any other failure (a broken migration, an unusable
   * PGlite directory) rejects: waiting would not mend it.
   */
  async prepareOrWait(): Promise<void> {
    try {
      // Under `fw dev`, a build that took over the earlier build's database as it was (same
      // entities, same migrations) has nothing to migrate or seed.
      if (this.#carry !== undefined && hasCarried(this.#carry, this.target)) {
        await this.open()
        if (this.#carriedMigrations !== undefined) {
          this.#migrationStates = this.#carriedMigrations
          return
        }
      }
      const { waiting } = await this.prepare()
      if (waiting !== undefined) this.#options.logger.warn(waitingLine(waiting))
    } catch (error) {
      if (!isUnavailableError(error)) throw error
      this.#waitInBackground(error)
    }
  }

  #waitInBackground(error: unknown): void {
    const logger = this.#options.logger
    this.#availability = { state: 'waiting', error: summaryOf(error), attempts: 1 }
    logger.warn('database unreachable at start: serving without it, retrying', {
      error: summaryOf(error),
    })
    retryUntilReady(
      async () => void (await this.prepare()),
      (failure, attempts) => {
        if (this.#availability.state === 'closed') return
        this.#availability = { state: 'waiting', error: summaryOf(failure), attempts: attempts + 1 }
        // The summary, not the error: its message would carry the failing statement's values.
        // `fw migrate`, run by hand, reports the database's own words.
        if (!isUnavailableError(failure))
          logger.error('database reachable but not ready', { error: summaryOf(failure) })
      },
      () => this.#availability.state === 'closed',
    ).then(
      (ok) => {
        if (!ok) return
        this.#availability = {
          state: 'ready',
          error: undefined,
          attempts: this.#availability.attempts,
        }
        logger.info('database reachable again: migrated and seeded')
      },
      (failure: unknown) => logger.error('retrying the database failed', { error: failure }),
    )
  }

  /**
   * Stops the retries (`closed`), runs `before` (what uses the database and must end first), then
   * closes the ORM and PGlite.
   */
  async close(before?: () => Promise<void>): Promise<void> {
    this.#availability = {
      state: 'closed',
      error: undefined,
      attempts: this.#availability.attempts,
    }
    await before?.()
    if (this.#carry === undefined) await this.#db?.close()
  }

  /**
   * Reads the migrations' state (creating nothing, not even the migrations table) into the
   * snapshot {@link migrations} answers; the database must be open.
   */
  async readMigrations(): Promise<readonly MigrationState[]> {
    const { readMigrationStates } = await import('./migration-runs.js')
    const { orm, migrations } = this.opened()
    this.#migrationStates = await readMigrationStates(orm, migrations)
    migrationsSeen.set(this.#db!, this.#migrationStates)
    return this.#migrationStates
  }

  #refuseLate(method: string): void {
    if (this.#opening !== undefined) throw tooLate(method)
  }
}

/**
 * The one line a start logs when a migration is not written yet (test/cli/unwritten-migration.test.ts).
 */
export function waitingLine(waiting: readonly string[]): string {
  const after = waiting.length - 1
  const rest = after === 0 ? '' : `, nor the ${after} after it`
  return `migration ${waiting[0]} is not written yet (its up has no statements): not run${rest}; write its SQL`
}

/** The migrations' state last read on each open database (handed over under `fw dev`). */
const migrationsSeen = new WeakMap<OpenedDatabase, readonly MigrationState[]>()

function tooLate(method: string): FwError {
  return databaseErrors.error('FW_ERR_DATABASE_SETUP_CLOSED', { method })
}

export type { MigrationEntry, MigrationState, Migrations, Seed } from './migration-types.js'
