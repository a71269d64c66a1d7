import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import database from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'
import { clusterFiles } from '../../../plugins/database/pglite-seed.js'

// A pglite://memory database starts from the files of the cached template, which one process
// reads once and seeds into each database it opens: every database starts empty and keeps its own
// rows, in the worker thread and in the main thread, one after another and side by side. On
// whatever database the suite runs, these open PGlite themselves.
const test = suite('pglite-seed')

async function open(pglite_worker: boolean) {
  const kernel = createTestKernel({
    config: { database: { pglite_worker } },
    plugins: [[database, { url: 'pglite://memory', entities: [] }]],
  })
  await kernel.boot()
  await kernel.plugin('database').ready()
  return kernel
}

type Opened = Awaited<ReturnType<typeof open>>

async function tables(kernel: Opened): Promise<string[]> {
  const rows = await kernel.plugin('database').sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' order by table_name`
  return rows.map((r) => r.name)
}

async function roundTrip(kernel: Opened, name: string): Promise<void> {
  const db = kernel.plugin('database')
  const run = (sql: string) => db.runStatement({ sql, bindings: [] })
  assert.equal(await tables(kernel), [], `${name} starts empty`)
  await run(`create table ${name} (id serial primary key, v text)`)
  await run(`insert into ${name} (v) select 'row ' || n from generate_series(1, 50) n`)
  const [row] = await run(`select count(*)::int as n from ${name}`)
  assert.is(row!.n, 50)
  assert.equal(await tables(kernel), [name])
}

test('each in-memory database starts empty and keeps its own rows, in either thread', async () => {
  for (const worker of [true, false]) {
    for (const name of ['first', 'second']) {
      const kernel = await open(worker)
      try {
        await roundTrip(kernel, `${name}_${worker ? 'worker' : 'main'}`)
      } finally {
        await kernel.close()
      }
    }
  }
})

test('two in-memory databases open at once do not see each other', async () => {
  const [a, b] = await Promise.all([open(true), open(false)])
  try {
    await Promise.all([roundTrip(a, 'alpha'), roundTrip(b, 'beta')])
    assert.equal(await tables(a), ['alpha'])
    assert.equal(await tables(b), ['beta'])
  } finally {
    await Promise.all([a.close(), b.close()])
  }
})

test('the seed is the template cluster, its directories before their files', () => {
  const dir = join(process.cwd(), 'node_modules', '.cache', 'fw')
  const template = readdirSync(dir).find((f) => /^pglite-.+-template$/.test(f))
  assert.ok(template, 'the template exists once a database was opened')
  const files = clusterFiles(join(dir, template))!
  const paths = files.entries.map(([path]) => path)
  assert.ok(paths.includes('PG_VERSION'))
  for (const [path, , length] of files.entries) {
    const parent = path.split('/').slice(0, -1).join('/')
    if (parent !== '')
      assert.ok(paths.indexOf(parent) < paths.indexOf(path), `${parent} before ${path}`)
    assert.ok(length >= -1)
  }
  assert.is(clusterFiles(join(dir, template)), files, 'read once per process')
  assert.is(clusterFiles(undefined), undefined)
})

test.run()
