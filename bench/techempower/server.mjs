// Starts the fw TechEmpower app on its own: `PORT` (default 8080) and `DATABASE_URL` from the
// environment; `TECHEMPOWER_MIGRATE=1` creates the schema and data first. Plain JavaScript, so
// `node bench/techempower/server.mjs` runs it on the built fw (dist/), and
// `node --import tsx -C fw-source bench/techempower/server.mjs` on the sources.
import { createTechEmpowerApp } from './app.mjs'

const kernel = createTechEmpowerApp({ migrate: process.env.TECHEMPOWER_MIGRATE === '1' })
const port = Number(process.env.PORT ?? 8080)
// Opened before listening: the plugin's maintenance check reads the database at `listen`.
await kernel.boot()
const address = await kernel.listen(port, process.env.HOST ?? '127.0.0.1')
console.log(`fw techempower listening on http://127.0.0.1:${address.port}`)
const stop = () => {
  kernel.close(1000).then(
    () => process.exit(0),
    () => process.exit(1),
  )
}
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
