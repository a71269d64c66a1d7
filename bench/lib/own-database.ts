// A PostgreSQL database of a benchmark's own on the local server, dropped by `drop()` or, when
// the run stops early (a failure, Ctrl-C), on exit.
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'

/** The local PostgreSQL server (trust auth); a database of the benchmark's own is created there. */
export const POSTGRES_URL =
  process.env.FW_BENCH_POSTGRES_URL ?? 'postgresql://postgres@127.0.0.1:5432/test'

/** Where `pg` resolves from for the drop on exit. */
const root = fileURLToPath(new URL('../..', import.meta.url))

/** The databases created and not dropped yet: dropped on exit, also after Ctrl-C or a failure. */
const undropped = new Set<string>()
const DROP = `const pg = require('pg')
const name = new URL(process.argv[1]).pathname.slice(1)
const client = new pg.Client({ connectionString: process.argv[2] })
client.connect().then(() => client.query('drop database if exists "' + name + '" with (force)')).finally(() => client.end())`
process.once('exit', () => {
  // Signal handlers exit at once, skipping every finally: drop what is left synchronously.
  for (const url of undropped) {
    if (!/^\/fw_test_[0-9a-f]+$/.test(new URL(url).pathname)) continue
    spawnSync(process.execPath, ['-e', DROP, url, POSTGRES_URL], {
      cwd: root,
      stdio: 'ignore',
      timeout: 10_000,
    })
  }
})

/** A PostgreSQL database of the benchmark's own (`createTestDatabase`), dropped by `drop()` or on exit. */
export async function ownDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase({ DATABASE_URL: POSTGRES_URL })
  undropped.add(db.url)
  return {
    url: db.url,
    async drop() {
      undropped.delete(db.url)
      await db.drop()
    },
  }
}
