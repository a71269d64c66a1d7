// `fw dev` opens the app's embedded database before it loads the app (cli/dev/early-database.ts):
// the one `DATABASE_URL` names, else the one the app opened at its last `fw dev`, remembered in
// `var/cache/fw-dev-database.json`. The app then serves on the database it names, also when that
// is another one: the early one is closed first, its rows kept.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTempPackage, runInCopy, type TempPackage } from './dev-process.js'

const test = suite('fw dev: the embedded database opened before the app')

/**
 * An app on the embedded database its config names (`var/<DB_DIR>`, read when the app is built,
 * unless `DATABASE_URL` says otherwise), counting the visits it stored there.
 */
const APP = `import { join } from 'node:path'
import { createKernel } from 'fw'
import database from 'fw/plugins/database'
export default ({ env = process.env, root } = {}) => {
  const url = 'pglite://' + join(root, 'var', env.DB_DIR ?? 'db')
  const kernel = createKernel({ root, env, config: { database: { url } } })
  kernel.register(database, {})
  kernel.router.get('visit', async () => {
    const db = kernel.plugin('database')
    await db.sql\`create table if not exists visits (n int)\`
    await db.sql\`insert into visits values (1)\`
    const [row] = await db.sql\`select count(*)::int as n from visits\`
    return { visits: row.n }
  })
  return kernel
}
`

function remembered(app: TempPackage): unknown {
  return JSON.parse(readFileSync(join(app.root, 'var', 'cache', 'fw-dev-database.json'), 'utf8'))
}

/** `fw dev` of the app under `env`, one `GET /visit`: its answer. */
async function visitOnce(app: TempPackage, env: NodeJS.ProcessEnv): Promise<unknown> {
  const running = await runInCopy(app, 'dev', { DATABASE_URL: undefined, ...env })
  try {
    const res = await fetch(`${running.url}/visit`)
    assert.is(res.status, 200, await res.clone().text())
    return await res.json()
  } finally {
    assert.is(await running.stop(), 0, running.output())
  }
}

test('the database the app opened is remembered, and the next start serves on it', async () => {
  const app = createTempPackage({ app: './app.mjs', files: { 'app.mjs': APP } })
  try {
    assert.equal(await visitOnce(app, {}), { visits: 1 })
    assert.equal(remembered(app), {
      database: 'pglite://var/db',
      statementMs: 5000,
      inWorker: true,
    })
    // Opened before the app loaded, then taken by its database plugin: the same rows.
    assert.equal(await visitOnce(app, {}), { visits: 2 })
  } finally {
    app.remove()
  }
})

test('an app that now names another database serves on it; the one opened early is closed, kept', async () => {
  const app = createTempPackage({ app: './app.mjs', files: { 'app.mjs': APP } })
  try {
    assert.equal(await visitOnce(app, {}), { visits: 1 })
    // The remembered `var/db` opens early; the app names `var/other`.
    assert.equal(await visitOnce(app, { DB_DIR: 'other' }), { visits: 1 })
    assert.ok(existsSync(join(app.root, 'var', 'other', 'PG_VERSION')))
    assert.equal(remembered(app), {
      database: 'pglite://var/other',
      statementMs: 5000,
      inWorker: true,
    })
    // `DATABASE_URL` names `var/db` again (the environment wins over the app's config): its rows
    // are as the first start left them.
    const again = { DB_DIR: 'other', DATABASE_URL: `pglite://${join(app.root, 'var', 'db')}` }
    assert.equal(await visitOnce(app, again), { visits: 2 })
  } finally {
    app.remove()
  }
})

test.run()
