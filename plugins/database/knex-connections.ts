// knex's connections between two statements of the ORM on PostgreSQL: kept by fw in a stack of its
// own rather than handed back to knex's pool (tarn) after every statement.
//
// knex acquires a connection from tarn for each statement outside a transaction (and one for each
// transaction), and tarn builds a pending operation with a timer for the acquire timeout on every
// acquire, however free the pool is: 1–4 µs of CPU per ORM statement, 5–15%
// (`bench/tools/orm-timeouts.mjs` measures it). So a released connection goes on fw's stack, and
// the next acquire takes the one released last, with no promise of tarn's and no timer. tarn still opens every
// connection, bounds their number (a connection on the stack counts as used there), makes an
// acquire wait in order under the acquire timeout when none is free, and closes what it is given
// back: a connection goes back to it when an acquire is waiting there, when it is marked disposed
// (lost, or closed after a statement timeout), when it went a whole sweep period unused, and when
// knex is destroyed.

/** How often connections that a whole period left unused go back to tarn (which closes idle ones). */
const SWEEP_MS = 1000

/** A connection as knex marks it: `__knex__disposed` once it must not be used again. */
interface KnexConnection {
  __knex__disposed?: unknown
}

/** knex's client, as far as {@link keepConnections} relies on it. */
interface PooledClient {
  pool?: { numPendingAcquires(): number }
  acquireConnection(): Promise<KnexConnection>
  releaseConnection(connection: KnexConnection): Promise<void>
  destroy(callback?: unknown): Promise<void>
}

const RELEASED = Promise.resolve()

/** Keeps the connections of knex's `client` between statements (see above). */
export function keepConnections(client: object): void {
  const knex = client as Partial<PooledClient>
  const acquire = knex.acquireConnection
  const release = knex.releaseConnection
  const destroy = knex.destroy
  if (
    typeof acquire !== 'function' ||
    typeof release !== 'function' ||
    typeof destroy !== 'function'
  )
    return
  /** Idle connections, the one released last at the end. */
  const idle: KnexConnection[] = []
  /** The fewest idle connections since the last sweep: that many at the bottom went unused. */
  let unused = 0
  let sweep: NodeJS.Timeout | undefined
  /** Set once knex is being destroyed: a connection released after that goes back to tarn. */
  let destroying = false
  const giveBack = (connection: KnexConnection): void =>
    void release.call(knex, connection).catch(() => undefined)
  const sweepIdle = (): void => {
    for (const connection of idle.splice(0, unused)) giveBack(connection)
    unused = idle.length
    if (idle.length === 0 && sweep !== undefined) {
      clearInterval(sweep)
      sweep = undefined
    }
  }
  knex.acquireConnection = function (this: PooledClient) {
    for (let connection = idle.pop(); connection !== undefined; connection = idle.pop()) {
      if (idle.length < unused) unused = idle.length
      if (!connection.__knex__disposed) return Promise.resolve(connection)
      giveBack(connection)
    }
    return acquire.call(this)
  }
  knex.releaseConnection = function (this: PooledClient, connection: KnexConnection) {
    if (
      destroying ||
      this.pool === undefined ||
      connection.__knex__disposed ||
      this.pool.numPendingAcquires() > 0
    )
      return release.call(this, connection)
    idle.push(connection)
    // A timer only while connections are kept; it alone does not keep the process up.
    sweep ??= setInterval(sweepIdle, SWEEP_MS).unref()
    return RELEASED
  }
  knex.destroy = function (this: PooledClient, callback?: unknown) {
    destroying = true
    unused = idle.length
    sweepIdle()
    return destroy.call(this, callback)
  }
}
