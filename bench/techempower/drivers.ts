// The drivers on their own, without HTTP: node-pg 8.23 in pipeline mode (one connection, and four
// as fw's read pool keeps them) against postgres.js (`max: 1`, pipelined, its statements
// prepared), with a `pg.Pool` of 10 unpipelined as the baseline. The same load for each: 64
// workers, each reading 20 random `world` rows at once (TechEmpower's queries test) again and
// again for `--duration` s; rounds interleaved, the drivers' order rotating. Prints statements/s
// and this process's CPU µs per statement, medians of the rounds.
// Last line: `drivers: pg-pipeline/postgres.js <x> (rate) <y> (CPU per statement, theirs/ours)`.
// Run: node --import tsx -C fw-source bench/techempower/drivers.ts [--duration 3] [--rounds 3]
//      (DATABASE_URL or FW_BENCH_POSTGRES_URL: the server to use)
import pg from 'pg'
import postgres from 'postgres'
import { median } from '../lib/stats.js'
import { loadRound, randomId, roundOptions, worldDatabase, type RoundSample } from './in-process.js'

const { DURATION_MS, ROUNDS } = roundOptions()
const READS = 20
const TEXT = 'select id, randomnumber from world where id = $1'

type Read = (id: number) => Promise<unknown>
interface Driver {
  readonly name: string
  readonly read: Read
  end(): Promise<void>
}

function pgPipelined(url: string, connections: number): Driver {
  const clients = Array.from(
    { length: connections },
    () => new pg.Client({ connectionString: url, pipeline: true } as pg.ClientConfig),
  )
  const ready = Promise.all(clients.map((c) => c.connect()))
  let next = 0
  return {
    name: `pg pipeline ×${connections}`,
    read: async (id) => {
      await ready
      const client = clients[next++ % connections] as pg.Client
      return (await client.query({ name: 'world', text: TEXT, values: [id] })).rows[0]
    },
    end: async () => void (await Promise.all(clients.map((c) => c.end()))),
  }
}

function pgPool(url: string): Driver {
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  return {
    name: 'pg.Pool ×10',
    read: async (id) => (await pool.query({ name: 'world', text: TEXT, values: [id] })).rows[0],
    end: () => pool.end(),
  }
}

function postgresJs(url: string): Driver {
  const sql = postgres(url, { max: 1 })
  return {
    name: 'postgres.js ×1',
    read: async (id) => (await sql`select id, randomnumber from world where id = ${id}`)[0],
    end: () => sql.end(),
  }
}

/** One round of `driver`: each worker reads READS rows at once, again and again. */
function measure(driver: Driver): Promise<RoundSample> {
  return loadRound(DURATION_MS, READS, () =>
    Promise.all(Array.from({ length: READS }, () => driver.read(randomId()))),
  )
}

const db = await worldDatabase()
try {
  const drivers = [
    pgPipelined(db.url, 1),
    pgPipelined(db.url, 4),
    postgresJs(db.url),
    pgPool(db.url),
  ]
  for (const driver of drivers) await driver.read(1)
  const samples = new Map(drivers.map((d) => [d.name, [] as RoundSample[]]))
  for (let round = 0; round < ROUNDS; round++)
    for (let k = 0; k < drivers.length; k++) {
      const driver = drivers[(k + round) % drivers.length] as Driver
      samples.get(driver.name)?.push(await measure(driver))
    }
  const of = (name: string) => {
    const list = samples.get(name) ?? []
    return { rate: median(list.map((s) => s.rate)), cpu: median(list.map((s) => s.cpu)) }
  }
  for (const driver of drivers) {
    const { rate, cpu } = of(driver.name)
    console.log(
      `  ${driver.name.padEnd(16)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} statements/s  ${cpu.toFixed(1).padStart(5)} µs CPU each`,
    )
  }
  await Promise.all(drivers.map((d) => d.end()))
  const ours = of('pg pipeline ×1')
  const theirs = of('postgres.js ×1')
  console.log(
    `drivers: pg-pipeline/postgres.js ${(ours.rate / theirs.rate).toFixed(2)} (rate) ${(theirs.cpu / ours.cpu).toFixed(2)} (CPU per statement, theirs/ours)`,
  )
} finally {
  await db.drop()
}
