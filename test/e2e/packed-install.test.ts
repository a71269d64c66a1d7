import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

// fw as a user gets it: the tarball `npm pack` makes (from dist/, which `npm test` and `prepack`
// build), installed into a fresh folder outside the repository with no lock file, so npm
// resolves every dependency range afresh, as it will for them. An app of that folder loads fw,
// runs its CLI, and a feature that needs an optional peer dependency names the package to install.
const test = suite('packed-install')

const repo = fileURLToPath(new URL('../../', import.meta.url))
const run = promisify(execFile)
const MINUTES = 60_000
/** fw's optional peer dependencies: not installed with it. */
const OPTIONAL = Object.keys(
  (
    JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
      peerDependencies: Record<string, string>
    }
  ).peerDependencies,
)

const APP = `import { fileURLToPath } from 'node:url'
import { createKernel, json } from 'fw'
import database from 'fw/plugins/database'
import telemetry from 'fw/plugins/telemetry'

export default function createApp({ env = process.env } = {}) {
  const kernel = createKernel({
    root: fileURLToPath(new URL('.', import.meta.url)),
    env,
    config: { app: { name: 'packed' }, database: { url: 'pglite://memory' } },
  })
  kernel.register(database, {}).register(telemetry)
  kernel.router.get('', () => json({ ok: true }))
  return kernel
}
`

let dir: string
let tarball: string
/** What `npm install <tarball>` printed on stderr (its warnings). */
let installWarnings: string

test.before(async () => {
  assert.ok(existsSync(join(repo, 'dist', 'cli', 'bin.js')), 'dist/ is not built: npm run build')
  dir = mkdtempSync(join(tmpdir(), 'fw-packed-'))
  const packed = await run(
    'npm',
    ['pack', '--ignore-scripts', '--json', '--pack-destination', dir],
    { cwd: repo, maxBuffer: 64 * 1024 * 1024, timeout: 5 * MINUTES },
  )
  tarball = join(dir, (JSON.parse(packed.stdout) as [{ filename: string }])[0].filename)
  const app = join(dir, 'app')
  await run('mkdir', [app])
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({ name: 'packed-app', private: true, type: 'module', fw: { app: './app.js' } }),
  )
  writeFileSync(join(app, 'app.js'), APP)
  const installed = await run(
    'npm',
    ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball],
    { cwd: app, timeout: 5 * MINUTES },
  )
  installWarnings = installed.stderr
})

test.after(() => rmSync(dir, { recursive: true, force: true }))

const app = () => join(dir, 'app')

// What a user downloads: dist/, the docs, the app templates and the playground's views, no
// TypeScript sources (the `fw-source` export condition is for this repository's own runs).
test('the tarball stays under 1 MB and ships no TypeScript source', () => {
  assert.ok(statSync(tarball).size <= 1_000_000, `${statSync(tarball).size} bytes`)
  const listed = execFileSync('tar', ['tzf', tarball], { encoding: 'utf8' }).split('\n')
  const sources = listed.filter(
    (f) => /\.ts$/.test(f) && !/\.d\.ts$/.test(f) && !f.startsWith('package/templates/'),
  )
  assert.equal(sources, [])
})

// npm asks the user to approve a package's install-time scripts; fw needs none (it ships built).
test('installs with no install-time script and no request to approve one', () => {
  const manifest = execFileSync('tar', ['xzOf', tarball, 'package/package.json'], {
    encoding: 'utf8',
  })
  const scripts = Object.keys((JSON.parse(manifest) as { scripts?: object }).scripts ?? {})
  const atInstall = ['preinstall', 'install', 'postinstall', 'prepare']
  assert.equal(
    scripts.filter((name) => atInstall.includes(name)),
    [],
  )
  // Only npm's own request to approve scripts: a dependency's deprecation notice is not fw's.
  assert.not.match(installWarnings, /install-scripts|allowScripts/)
})

test('installs without the optional peer dependencies', () => {
  const installed = OPTIONAL.filter((name) => existsSync(join(app(), 'node_modules', name)))
  assert.equal(installed, [])
})

// What an app's node_modules holds with fw and nothing else: 119 packages (fw included), 49 MB on
// disk (the embedded PostgreSQL is 22 of them). A bound, so that a new dependency is a decision.
test('fw brings at most 120 packages', async () => {
  const { stdout } = await run('npm', ['ls', '--all', '--parseable'], {
    cwd: app(),
    timeout: MINUTES,
  })
  const packages = new Set(stdout.split('\n').filter((line) => line.includes('node_modules')))
  assert.ok(packages.size <= 120, `${packages.size} packages`)
})

test('the app imports fw and its plugins', async () => {
  const { stdout } = await run(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      "const fw = await import('fw'); console.log(typeof fw.createKernel)",
    ],
    { cwd: app(), timeout: MINUTES },
  )
  assert.is(stdout.trim(), 'function')
})

// MikroORM ships CommonJS behind an ESM wrapper, and Node lexes each CommonJS module an `import`
// reaches: for MikroORM, all of it. The built package requires it instead (scripts/bundle-dist.mjs),
// so opening a database loads none of it through the ESM loader, and the app's own `import` of
// MikroORM still gets the classes the database plugin uses.
const OPEN = `const { default: createApp } = await import('./app.js')
const kernel = createApp({ env: { ...process.env, NODE_ENV: 'test' } })
await kernel.boot()
const db = kernel.plugin('database')
await db.ready()
const [row] = await db.sql\`select 1 as one\`
const same = process.env.SAME ? (await import('@mikro-orm/core')).MikroORM === db.orm.constructor : ''
console.log(JSON.stringify({ one: row.one, same }))
await kernel.close()`

test('the built package requires MikroORM, sharing it with the app’s imports', async () => {
  const probe = join(repo, 'test', 'cli', 'fixtures', 'report-modules.mjs')
  const env = { ...process.env, FW_REPORT_MODULES: '/@mikro-orm/,/mikro-orm-pglite/' }
  const args = ['--import', probe, '--input-type=module', '-e', OPEN]
  const opened = await run(process.execPath, args, { cwd: app(), env, timeout: MINUTES })
  assert.equal(JSON.parse(opened.stdout), { one: 1, same: '' })
  const report = opened.stderr.split('\n').find((line) => line.startsWith('modules: '))
  assert.is(report, 'modules: []')
  const shared = await run(process.execPath, ['--input-type=module', '-e', OPEN], {
    cwd: app(),
    env: { ...process.env, SAME: '1' },
    timeout: MINUTES,
  })
  assert.equal(JSON.parse(shared.stdout), { one: 1, same: true })
})

test('npx fw --help lists the built-in and the plugins’ commands', async () => {
  const { stdout } = await run('npx', ['fw', '--help'], { cwd: app(), timeout: 2 * MINUTES })
  assert.match(stdout, 'fw serve')
  assert.match(stdout, 'fw migrate')
})

test('metrics without prom-client stop the app with the install line', async () => {
  const failed = await run('npx', ['fw', 'route:list'], {
    cwd: app(),
    env: { ...process.env, FW_METRICS: 'true' },
    timeout: 2 * MINUTES,
  }).then(
    () => undefined,
    (error: { code?: number; stderr?: string }) => error,
  )
  assert.is(failed?.code, 1)
  assert.match(failed?.stderr ?? '', "npm install prom-client@'^15")
})

test.run()
