import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

// The embedded database's worker thread runs in whatever process opens it, also one whose code is
// a module given on the command line (`node --input-type=module -e …`, a flag its worker threads
// inherit). On whatever database the suite runs, this opens PGlite itself.
const test = suite('pglite-thread')
const repo = fileURLToPath(new URL('../../..', import.meta.url))

const OPEN = `
import database from 'fw/plugins/database'
import { createTestKernel } from 'fw/testing'
const kernel = createTestKernel({
  config: { database: { pglite_worker: true } },
  plugins: [[database, { url: 'pglite://memory', entities: [] }]],
})
await kernel.boot()
await kernel.plugin('database').ready()
const [row] = await kernel.plugin('database').sql\`select 1 as one\`
console.log(JSON.stringify(row))
await kernel.close()
`

test('a process run as `node --input-type=module -e` opens PGlite in its worker thread', async () => {
  const args = ['--import', 'tsx', '-C', 'fw-source', '--input-type=module', '-e', OPEN]
  const env = { ...process.env, DATABASE_URL: undefined }
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd: repo, env })
  assert.equal(JSON.parse(stdout), { one: 1 })
})

test.run()
