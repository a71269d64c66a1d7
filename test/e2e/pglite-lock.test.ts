// An on-disk embedded database belongs to one process at a time (plugins/database/pglite-lock.ts):
// while `fw dev` has it open, a command or `fw serve` on the same directory exits 1 with one line
// naming the directory and the process; once `fw dev` stops, the command works. A lock left by a
// process that is gone is taken over.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import { createTempPackage, runInCopy } from './dev-process.js'

const test = suite('the embedded database: one process at a time')

const APP = `import { createKernel } from 'fw'
import database, { defineMigration } from 'fw/plugins/database'
export default ({ env = process.env, root } = {}) => {
  const kernel = createKernel({ root, env })
  kernel.register(database, {
    migrations: [defineMigration({ name: '20260101000000_notes', up: ['create table notes (id int)'] })],
  })
  return kernel
}
`

/** The CLI in the app's package, on the data directory `dataDir`. */
const fw = (dir: string, dataDir: string, args: readonly string[]) =>
  runCli(args, { cwd: dir, env: { DATABASE_URL: `pglite://${dataDir}` }, timeoutMs: 180_000 })

test('a second process is refused while fw dev holds the directory, and works once it stops', async () => {
  const app = createTempPackage({ app: './app.mjs', files: { 'app.mjs': APP } })
  const dataDir = join(app.root, 'var', 'db')
  try {
    const dev = await runInCopy(app, 'dev', { DATABASE_URL: `pglite://${dataDir}` })
    try {
      for (const args of [['migrate', '--status'], ['migrate'], ['serve', '--port', '0']]) {
        const { code, stdout, stderr } = await fw(app.dir, dataDir, args)
        assert.is(code, 1, `${args.join(' ')}: ${stdout}${stderr}`)
        assert.is(stderr.trim().split('\n').length, 1, stderr)
        assert.match(stderr, `fw: The embedded database ${dataDir} is in use by process `)
        assert.match(stderr, String(dev.child.pid))
        assert.match(stderr, 'DATABASE_URL')
      }
    } finally {
      assert.is(await dev.stop(), 0, dev.output())
    }
    assert.not.ok(existsSync(`${dataDir}.lock`), 'the lock goes with the process')
    const { code, stdout, stderr } = await fw(app.dir, dataDir, ['migrate', '--status'])
    assert.is(code, 0, stderr)
    assert.match(stdout, 'ran      20260101000000_notes')
  } finally {
    app.remove()
  }
})

test('a lock whose process is gone is taken over', async () => {
  const app = createTempPackage({ app: './app.mjs', files: { 'app.mjs': APP } })
  const dataDir = join(app.root, 'var', 'db')
  try {
    const gone = spawnSync(process.execPath, ['-e', '']).pid
    mkdirSync(join(app.root, 'var'), { recursive: true })
    writeFileSync(`${dataDir}.lock`, `${gone}\n`)
    const { code, stdout, stderr } = await fw(app.dir, dataDir, ['migrate'])
    assert.is(code, 0, stderr)
    assert.match(stdout, 'migrated 20260101000000_notes')
    assert.not.ok(existsSync(`${dataDir}.lock`), 'released at exit')
  } finally {
    app.remove()
  }
})

test.run()
