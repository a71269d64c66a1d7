// Run as a child process by driver-loading.test.ts: boots a kernel with the database plugin on
// `DATABASE_URL` (or PGlite in memory without it), runs one statement, closes and exits.
import { createKernel } from 'fw'
import database from 'fw/plugins/database'

const kernel = createKernel({ config: { app: { name: 'driver-loading' }, development: false } })
const url = process.env.DATABASE_URL
kernel.register(database, url === undefined ? { entities: [] } : { entities: [], url })
await kernel.boot()
await kernel.plugin('database').ready()
const rows = await kernel.plugin('database').sql<{ one: number }>`select 1 as one`
await kernel.close()
console.log(JSON.stringify(rows))
