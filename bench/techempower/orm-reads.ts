// MikroORM's reads on PostgreSQL, in process: 64 workers, each forking an EntityManager (as a
// request does) and finding one random `world` row by id (`em.findOne`), again and again for
// `--duration` s; `db.sql` reading the same rows as the reference. Rounds interleaved. Prints reads
// a second and this process's CPU µs per read (medians). With the ORM's reads on the pipelined read
// pool they share its few connections; before, each took a connection of knex's pool for itself.
// Last line: `orm-reads: findOne/sql <x> (rate) <y> (CPU per read, sql/findOne)`.
// Run: node --import tsx -C fw-source bench/techempower/orm-reads.ts [--duration 3] [--rounds 3]
//      (DATABASE_URL or FW_BENCH_POSTGRES_URL: the server to use)
import { EntitySchema } from '@mikro-orm/core'
import database from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'
import { median } from '../lib/stats.js'
import { loadRound, randomId, roundOptions, worldDatabase, type RoundSample } from './in-process.js'

const { DURATION_MS, ROUNDS } = roundOptions()
class World {
  id!: number
  randomnumber!: number
}
const WorldSchema = new EntitySchema<World>({
  class: World,
  tableName: 'world',
  properties: { id: { type: 'integer', primary: true }, randomnumber: { type: 'integer' } },
})

const testDb = await worldDatabase()
const kernel = createTestKernel({
  plugins: [[database, { url: testDb.url, entities: [WorldSchema] }]],
})
try {
  await kernel.boot()
  const db = kernel.plugin('database')
  await db.ready()
  const root = db.em()
  const ways: Record<string, () => Promise<unknown>> = {
    findOne: () => root.fork().findOne(World, randomId()),
    sql: () => db.sql`select id, randomnumber from world where id = ${randomId()}`,
  }
  const samples = new Map(Object.keys(ways).map((w) => [w, [] as RoundSample[]]))
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? Object.keys(ways) : Object.keys(ways).reverse()
    for (const way of order) {
      samples.get(way)?.push(await loadRound(DURATION_MS, 1, ways[way]!))
    }
  }
  const of = (way: string) => {
    const list = samples.get(way) ?? []
    return { rate: median(list.map((s) => s.rate)), cpu: median(list.map((s) => s.cpu)) }
  }
  for (const way of Object.keys(ways)) {
    const { rate, cpu } = of(way)
    console.log(
      `  ${way.padEnd(8)} ${Math.round(rate).toLocaleString('en-US').padStart(8)} reads/s  ${cpu.toFixed(1).padStart(6)} µs CPU each`,
    )
  }
  const orm = of('findOne')
  const fast = of('sql')
  console.log(
    `orm-reads: findOne/sql ${(orm.rate / fast.rate).toFixed(2)} (rate) ${(fast.cpu / orm.cpu).toFixed(2)} (CPU per read, sql/findOne)`,
  )
} finally {
  await kernel.close()
  await testDb.drop()
}
