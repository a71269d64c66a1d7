// The whole path of a new app, as a user takes it: fw packed (`npm pack` of the built package),
// installed from the tarball, `fw new` run from there; in the new app `npm install`, `npm test`,
// `npm run dev` (the home page, then a generated controller served and a generated migration
// applied by the running server), `npm run build`, then `NODE_ENV=production npm start`, on
// PostgreSQL when DATABASE_URL is set (else the embedded database), serving the same pages from
// the app's own folder. Needs dist/ (`npm test` builds it first) and npm's cache (installs prefer it).
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { performance } from 'node:perf_hooks'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { until } from './dev-process.js'

const repo = fileURLToPath(new URL('../../', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'fw-new-app-'))
/** Where fw is installed from the tarball, and `npx fw new` runs. */
const tools = join(work, 'tools')
const app = join(tools, 'bookmarks')
const guide = readFileSync(join(repo, 'docs', 'getting-started.md'), 'utf8')
/** The commands run, as docs/getting-started.md writes them (without variable assignments). */
const ran = new Set<string>()
const INSTALL = ['--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error']

/** The environment of every step: nothing of the suite's (no FW_APP, NODE_ENV, DATABASE_URL). */
function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const { FW_APP: _a, NODE_ENV: _n, DATABASE_URL: _d, FW_APP_KEY: _k, ...env } = process.env
  return { ...env, NO_COLOR: '1', ...extra }
}

/** Runs a command line of the guide (`npx fw make:entity Bookmark`) in `cwd`, recording it. */
async function step(
  line: string,
  cwd: string = app,
  env: NodeJS.ProcessEnv = cleanEnv(),
): Promise<string> {
  ran.add(line)
  const [cmd, ...args] = line.split(' ')
  const { code, output } = await run(cmd!, args, cwd, env)
  assert.is(code, 0, `${line}:\n${output}`)
  return output
}

/** The files the guide shows (```ts file=<path>), by path. */
function guideFile(path: string): string {
  const block = new RegExp(
    `^\`\`\`\\w+ file=${path.replaceAll('.', '\\.')}\\n([\\s\\S]*?)^\`\`\`$`,
    'm',
  )
  const found = block.exec(guide)?.[1]
  assert.ok(found, `docs/getting-started.md shows ${path}`)
  return found
}

/**
 * While fw admits a range of MikroORM's packages, which move together, npm may pick a release
 * whose own pins the registry lacks: the installs take the versions of fw's lock file. Once fw
 * pins them exactly, nothing is added.
 */
function pins(): { overrides?: Record<string, string> } {
  const fw = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as {
    dependencies: Record<string, string>
  }
  const ranged = Object.keys(fw.dependencies).filter(
    (name) => name.startsWith('@mikro-orm/') && /^[\^~]/.test(fw.dependencies[name]!),
  )
  if (ranged.length === 0) return {}
  const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { version: string }>
  }
  return {
    overrides: Object.fromEntries(
      ranged.map((name) => [name, lock.packages[`node_modules/${name}`]!.version]),
    ),
  }
}

/** Runs a command to its end: its exit code and output. */
function run(
  cmd: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = cleanEnv(),
  input?: string,
): Promise<{ code: number; output: string }> {
  return new Promise((done, fail) => {
    const child = spawn(cmd, args, { cwd, env, stdio: ['pipe', 'pipe', 'pipe'] })
    child.stdin.end(input ?? '')
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
  ran.add(['npm', ...script].join(' '))
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
  child.on('error', (error) => (out += `\n${String(error)}`))
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

test('npx fw new from the tarball; npm install, npm test', async () => {
  assert.ok(existsSync(join(repo, 'dist', 'cli', 'bin.js')), 'dist/ is built (npm run build)')
  const packed = await run(
    'npm',
    ['pack', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'],
    repo,
  )
  assert.is(packed.code, 0, packed.output)
  const tarball = join(work, packed.output.trim().split('\n').at(-1)!)
  mkdirSync(tools)
  writeFileSync(join(tools, 'package.json'), `${JSON.stringify({ private: true, ...pins() })}\n`)
  // The guide's `npm install ../fw/fw-0.1.0.tgz`, with this run's tarball.
  ran.add(`npm install ../fw/${basename(tarball)}`)
  const tooled = await run('npm', ['install', tarball, ...INSTALL], tools)
  assert.is(tooled.code, 0, tooled.output)
  const started = performance.now()
  await step('npx fw new bookmarks', tools)
  ran.add('cd bookmarks')
  const pkg = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as {
    dependencies: { fw: string }
  }
  assert.is(pkg.dependencies.fw, `file:${tarball}`)
  writeFileSync(join(app, 'package.json'), `${JSON.stringify({ ...pkg, ...pins() }, null, 2)}\n`)
  ran.add('npm install')
  const install = await run('npm', ['install', ...INSTALL], app)
  assert.is(install.code, 0, install.output)
  const installed = performance.now()
  // The target (a figure, not asserted): fw new + npm install + first page of npm run dev < 30 s.
  const dev = await serve(['run', 'dev'], cleanEnv())
  try {
    assert.is((await get(`${dev.url}/`)).status, 200)
  } finally {
    await dev.stop()
  }
  console.log(
    `fw new + npm install: ${Math.round(installed - started)} ms; + first page of npm run dev: ${Math.round(performance.now() - started)} ms`,
  )
  const tests = await step('npm test')
  assert.match(tests, /# fail 0/)
})

test('npm run dev: the home page, then a generated entity and controller served', async () => {
  const dev = await serve(['run', 'dev'], cleanEnv())
  try {
    const home = await get(`${dev.url}/`)
    assert.is(home.status, 200, home.body)
    assert.match(home.body, 'Welcome to bookmarks')
    assert.is((await get(`${dev.url}/api/status`)).status, 200)
    await step('npx fw make:entity Bookmark')
    await step('npx fw make:controller bookmarks')
    await until(
      async () => ((await get(`${dev.url}/bookmarks`)).status === 200 ? true : undefined),
      'GET /bookmarks answers after make:controller',
      60_000,
    )
    await until(
      async () => (/1 migration applied/.test(dev.output()) ? true : undefined),
      'fw dev applies the migration of make:entity',
      60_000,
    )
    // The guide's controller and page, over the generated controller.
    writeFileSync(join(app, 'controllers', 'bookmarks.ts'), guideFile('controllers/bookmarks.ts'))
    writeFileSync(join(app, 'views', 'bookmarks.eta'), guideFile('views/bookmarks.eta'))
    const list = await until(async () => {
      const res = await fetch(`${dev.url}/api/bookmarks`)
      return res.status === 200 ? ((await res.json()) as { total: number }) : undefined
    }, 'GET /api/bookmarks answers the list')
    assert.is(list.total, 0)
  } finally {
    await dev.stop()
  }
})

test('npx fw make:test, the test of the guide, npm test', async () => {
  await step('npx fw make:test bookmarks')
  writeFileSync(join(app, 'test', 'bookmarks.test.ts'), guideFile('test/bookmarks.test.ts'))
  const tests = await step('npm test')
  assert.match(tests, /# pass 5\n/)
  assert.match(tests, /# fail 0/)
})

test('npm run build, then NODE_ENV=production npm start serves the same pages', async (context) => {
  await step('npm run build')
  assert.ok(existsSync(join(app, 'dist', 'app.js')))
  // On PostgreSQL when the suite has a server; the embedded database in var/db otherwise.
  const env: NodeJS.ProcessEnv = cleanEnv({ NODE_ENV: 'production' })
  if (process.env.DATABASE_URL !== undefined) {
    context.db = await createTestDatabase()
    env.DATABASE_URL = context.db.url
  }
  await step('npm run migrate', app, env)
  // The last migration reverted and applied again; an account from the command line.
  assert.match(await step('npx fw migrate:rollback', app, env), /revert|roll/i)
  await step('npm run migrate', app, env)
  const created = await run(
    'npx',
    ['fw', 'user:create', 'ada', '--email', 'ada@example.test', '--password-stdin'],
    app,
    { ...env, FW_APP_KEY: 'base64:new-app-whole-path-key-0123456789' },
    'a long passphrase for ada\n',
  )
  assert.is(created.code, 0, created.output)
  const prod = await serve(['start'], env)
  try {
    const home = await get(`${prod.url}/`)
    assert.is(home.status, 200, home.body)
    // The views and public/ of the app's folder, not of dist/.
    assert.match(home.body, '<link rel="stylesheet" href="/assets/style.css">')
    assert.is((await get(`${prod.url}/assets/style.css`)).status, 200)
    assert.is((await get(`${prod.url}/bookmarks`)).status, 200)
    assert.is((await get(`${prod.url}/api/bookmarks`)).status, 200)
    // No key in production: nothing is signed, and the start says how to make one.
    assert.match(prod.output(), 'Make one with `npx fw key:generate`')
    assert.not.ok(existsSync(join(app, 'dist', 'var')), 'var/ stays in the app folder')
  } finally {
    await prod.stop()
  }
  await step('npx fw key:generate', app, env)
  assert.match(readFileSync(join(app, '.env'), 'utf8'), /^FW_APP_KEY=base64:/m)
})

test('every command of docs/getting-started.md was run', () => {
  const blocks = [...guide.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]!)
  const lines = blocks
    .flatMap((b) => b.split('\n'))
    .map((l) => l.replace(/#.*$/, '').trim())
    .filter((l) => l !== '')
    // `NODE_ENV=production DATABASE_URL=… npm start`: the command, run with those variables.
    .map((l) => l.replace(/^(?:[A-Z_]+=\S+\s+)+/, ''))
  assert.ok(lines.length >= 10)
  for (const line of lines) assert.ok(ran.has(line), `not run by this suite: ${line}`)
})

test.run()
