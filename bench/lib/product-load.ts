// What bench/products.ts, bench/soak.ts and bench/memory.ts share: a PostgreSQL database of their
// own seeded by the playground itself, the playground served on it, the product request (ids spread
// over 1…1000), a check of the answer's shape, and an autocannon run bounded in time and in count.
import autocannon from 'autocannon'
import type { TestDatabase } from 'fw/plugins/database'
import { PRODUCT_COLUMNS } from '../../playground/entities/product.js'
import { ownDatabase } from './own-database.js'
import { measureLoad } from './ping-load.js'
import { firstOk, get, startFw, type FwChild, type FwCommand } from './playground-child.js'
import type { VariantRoute } from './serve-variants.js'

export { ownDatabase, POSTGRES_URL } from './own-database.js'

/** Sent with every product request: JSON wanted, and the demo application's API key. */
export const PRODUCT_HEADERS: Readonly<Record<string, string>> = {
  accept: 'application/json',
  apikey: 'demo-api-key',
}

/** The seeded products are 1…1000. */
export const PRODUCT_COUNT = 1000

/** The i-th product path of a run: 7919 is prime to 1000, so every 1,000 requests visit each id once, spread out. */
export function productPath(i: number): string {
  return `/api/v1/products/${((i * 7919) % PRODUCT_COUNT) + 1}`
}

/** Throws unless `body` is product `id`'s record itself, every column (spec Resources: show answers the record). */
export function checkProduct(name: string, id: number, body: string): Record<string, unknown> {
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    throw new Error(`${name}: GET /api/v1/products/${id} answered non-JSON: ${body.slice(0, 300)}`)
  }
  const data =
    typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined
  // In development the debug payload rides along as `_debug` (spec Debug facility).
  const keys =
    data === undefined
      ? []
      : Object.keys(data)
          .filter((k) => k !== '_debug')
          .sort()
  if (
    data?.id !== id ||
    keys.join() !== [...PRODUCT_COLUMNS].sort().join() ||
    typeof data.price !== 'number'
  ) {
    throw new Error(
      `${name}: GET /api/v1/products/${id} answered ${body.slice(0, 300)}; expected {${PRODUCT_COLUMNS.join(', ')}} with id ${id}`,
    )
  }
  return data
}

/**
 * A fresh PostgreSQL database, migrated and seeded by starting the playground on it once
 * (production), then stopping it. Resolves when product 1000 answers, i.e. after the seed.
 */
export async function seededDatabase(command: FwCommand): Promise<TestDatabase> {
  const db = await ownDatabase()
  try {
    const seeder = startFw({
      name: 'playground (seeding)',
      env: { DATABASE_URL: db.url, NODE_ENV: 'production' },
      command,
    })
    try {
      const { url } = await seeder.listening(60_000)
      const { body } = await firstOk(
        `${url}/api/v1/products/${PRODUCT_COUNT}`,
        PRODUCT_HEADERS,
        30_000,
        50,
      )
      checkProduct('playground', PRODUCT_COUNT, body)
    } catch (error) {
      // The cause says what went wrong; its output is added unless the cause already carries it.
      const output = (error as Error).message.includes(seeder.output())
        ? ''
        : `; its output:\n${seeder.output()}`
      throw new Error(`seeding through the playground failed${output}`, { cause: error })
    } finally {
      await seeder.stop()
    }
    return db
  } catch (error) {
    await db.drop()
    throw error
  }
}

/** The playground in production on `db` (a {@link seededDatabase}), with the probe for its CPU and memory. */
export function servePlaygroundOn(db: TestDatabase, command: FwCommand): FwChild {
  return startFw({
    name: 'fw',
    env: { DATABASE_URL: db.url, NODE_ENV: 'production' },
    probe: true,
    command,
  })
}

/** Options of {@link loadProducts}. */
export interface ProductLoad {
  readonly url: string
  readonly connections: number
  /** Run for this long (seconds)… */
  readonly seconds?: number
  /** …or until this many requests were answered (then `maxSeconds` bounds it in time). */
  readonly amount?: number
  /** With `amount`: stop after this long whatever the count (default 60 s). */
  readonly maxSeconds?: number
  /** Where this run starts in the id sequence (so consecutive runs keep spreading ids). */
  readonly offset?: number
}

/**
 * Loads `GET /api/v1/products/{id}` with autocannon, ids spread over 1…1000; stops by itself
 * (duration, or amount bounded by maxSeconds). Throws on errors, timeouts or non-2xx answers.
 */
export function loadProducts(name: string, load: ProductLoad): Promise<autocannon.Result> {
  let i = load.offset ?? 0
  const options: autocannon.Options = {
    url: load.url,
    connections: load.connections,
    pipelining: 1,
    headers: { ...PRODUCT_HEADERS },
    requests: [{ setupRequest: (req) => ({ ...req, path: productPath(i++) }) }],
    ...(load.amount !== undefined ? { amount: load.amount } : { duration: load.seconds ?? 5 }),
  }
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined
    const instance = autocannon(options, (error: unknown, result: autocannon.Result) => {
      clearTimeout(timer)
      if (error) return reject(error as Error)
      if (result.errors > 0 || result.timeouts > 0 || result.non2xx > 0) {
        return reject(
          new Error(
            `${name}: ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx responses (${JSON.stringify(result.statusCodeStats)})`,
          ),
        )
      }
      resolve(result)
    })
    if (load.amount !== undefined) {
      timer = setTimeout(() => instance.stop(), (load.maxSeconds ?? 60) * 1000)
    }
  })
}

/**
 * `GET /api/v1/products/{id}` as the route of served variants (bench/lib/serve-variants.ts):
 * each round goes on through the id sequence where the last one stopped.
 */
export function productsRoute(): VariantRoute {
  let offset = 0
  return {
    label: 'GET /api/v1/products/{id}',
    async check(server) {
      const res = await get(server.url + productPath(0), PRODUCT_HEADERS)
      if (res.status !== 200)
        throw new Error(`${server.name}: ${productPath(0)} answered ${res.status} ${res.body}`)
      return checkProduct(server.name, 1, res.body)
    },
    async load(server, seconds) {
      const { run, result } = await measureLoad(server, () =>
        loadProducts(server.name, { url: server.url, connections: 50, seconds, offset }),
      )
      offset += result.requests.total
      return run
    },
  }
}
