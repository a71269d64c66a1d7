// The whole path of a new app, as a user takes it: fw packed (`npm pack` of the built package),
// installed from the tarball, `fw new` run from there; in the new app `npm install`, `npm test`,
// `npm run dev` (the home page, then a generated controller served and a generated migration
// applied by the running server), `npm run build`, then `NODE_ENV=production npm start`, on
// PostgreSQL when DATABASE_URL is set (else the embedded database), serving the same pages from
// the app's own folder. Needs dist/ (npm ci builds it) and npm's cache (installs prefer it).
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { until } from './dev-process.js'

const repo = fileURLToPath(new URL('../../', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'fw-new-app-'))
const app = join(work, 'bookmarks')
const INSTALL = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']

/** The environment of every step: nothing of the suite's (no FW_APP, NODE_ENV, DATABASE_URL). */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { FW_APP: _a, NODE_ENV: _n, DATABASE_URL: _d, FW_APP_KEY: _k, ...env } = process.env
  return { ...env, NO_COLOR: '1', ...extra }
}

/** Runs a command to its end: its exit code and output. */
function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<{ code: number; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString()))
    child.stderr.on('data', (c: Buffer) => (output += c.toString()))
    child.on('error', fail)
    child.on('close', (code) => done({ code: code ?? 1, output }))
  })
}

/** A server started by an npm script: its URL once it prints it, its output, and a way to stop it. */
interface Server {
  readonly url: string
  output(): string
  stop(): Promise<void>
}

/** `npm run <script>` in its own process group (npm, the shell, node), until it listens. */
function serve(script: string[], env: NodeJS.ProcessEnv): Promise<Server> {
  const child: ChildProcess = spawn('npm', script, {
    cwd: app,
    env: { ...env, PORT: '0' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout!.on('data', (c: Buffer) => (out += c.toString()))
  child.stderr!.on('data', (c: Buffer) => (out += c.toString()))
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()))
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) process.kill(-child.pid!, 'SIGTERM')
    await exited
  }
  return until(
    async () => {
      if (child.exitCode !== null) throw new Error(`npm ${script.join(' ')} exited:\n${out}`)
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1]
      return url === undefined ? undefined : { url, output: () => out, stop }
    },
    `npm ${script.join(' ')} listening`,
    180_000,
  ).catch(async (error: unknown) => {
    await stop()
    throw error
  })
}

async function get(url: string): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers: { accept: 'text/html' } })
  return { status: res.status, body: await res.text() }
}

const test = suite<{ db?: TestDatabase }>('a new app, from the packed tarball to production')

test.after(async (context) => {
  await context.db?.drop()
})

test('fw new from the tarball; npm install, npm test', async () => {
  assert.ok(existsSync(join(repo, 'dist', 'cli', 'bin.js')), 'dist/ is built (npm run build)')
  const packed = await run(
    'npm',
    ['pack', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'],
    repo,
  )
  assert.is(packed.code, 0, packed.output)
  const tarball = join(work, packed.output.trim().split('\n').at(-1)!)
  // fw installed from the tarball into a folder of tools, and `fw new` run from that install.
  const tools = join(work, 'tools')
  mkdirSync(tools)
  writeFileSync(join(tools, 'package.json'), '{ "private": true }\n')
  const tooled = await run('npm', ['install', tarball, ...INSTALL], tools)
  assert.is(tooled.code, 0, tooled.output)
  const made = await run(join(tools, 'node_modules', '.bin', 'fw'), ['new', 'bookmarks'], work)
  assert.is(made.code, 0, made.output)
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
    dependencies: { fw: string }
  }
  assert.is(pkg.dependencies.fw, `file:${tarball}`)
  const install = await run('npm', ['install', ...INSTALL], app)
  assert.is(install.code, 0, install.output)
  const tests = await run('npm', ['test'], app)
  assert.is(tests.code, 0, tests.output)
  assert.match(tests.output, /# fail 0/)
})

test('npm run dev serves the home page; a generated controller is served, a migration applied', async () => {
  const dev = await serve(['run', 'dev'], cleanEnv())
  try {
    const home = await get(`${dev.url}/`)
    assert.is(home.status, 200, home.body)
    assert.match(home.body, 'Welcome to bookmarks')
    assert.is((await get(`${dev.url}/api/status`)).status, 200)
    const fw = join(app, 'node_modules', '.bin', 'fw')
    for (const args of [
      ['make:controller', 'notes'],
      ['make:entity', 'Note'],
    ]) {
      const made = await run(fw, args, app)
      assert.is(made.code, 0, made.output)
    }
    await until(
      async () => ((await get(`${dev.url}/notes`)).status === 200 ? true : undefined),
      'GET /notes answers 200 after make:controller',
      60_000,
    )
    await until(
      async () => (/1 migration applied/.test(dev.output()) ? true : undefined),
      `fw dev applies the migration of make:entity (output:\n${dev.output()})`,
      60_000,
    )
  } finally {
    await dev.stop()
  }
})

test('npm run build, then NODE_ENV=production npm start serves the same pages', async (context) => {
  const build = await run('npm', ['run', 'build'], app)
  assert.is(build.code, 0, build.output)
  assert.ok(existsSync(join(app, 'dist', 'app.js')))
  // On PostgreSQL when the suite has a server; the embedded database in var/db otherwise.
  const env: NodeJS.ProcessEnv = cleanEnv({ NODE_ENV: 'production' })
  if (process.env.DATABASE_URL !== undefined) {
    context.db = await createTestDatabase()
    env.DATABASE_URL = context.db.url
    const migrated = await run('npm', ['run', 'migrate'], app, env)
    assert.is(migrated.code, 0, migrated.output)
  }
  const prod = await serve(['start'], env)
  try {
    const home = await get(`${prod.url}/`)
    assert.is(home.status, 200, home.body)
    // The views and public/ of the app's folder, not of dist/.
    assert.match(home.body, '<link rel="stylesheet" href="/style.css">')
    assert.is((await get(`${prod.url}/style.css`)).status, 200)
    assert.is((await get(`${prod.url}/notes`)).status, 200)
    assert.is((await get(`${prod.url}/api/status`)).status, 200)
    // No key in production: nothing is signed, and the start says how to make one.
    assert.match(prod.output(), 'Make one with `npx fw key:generate`')
    assert.not.ok(existsSync(join(app, 'dist', 'var')), 'var/ stays in the app folder')
  } finally {
    await prod.stop()
  }
})

test.run()
