import { spawnSync } from 'node:child_process'
import {
  cpSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { linkDependencies } from '../e2e/dev-process.js'

// fw's compiled library (cli/compile/): when tsx runs (the CLI from its sources, or the built CLI
// loading a TypeScript app through tsx), fw's own modules are served from a few compiled chunks instead of one
// by one through tsx. Run as a user runs the CLI, in a process of its own, with a probe that lists
// the modules loaded one by one. Every command gives what it gives with the library off.
const test = suite('compiled library')
const repo = fileURLToPath(new URL('../..', import.meta.url))
const probe = fileURLToPath(new URL('fixtures/report-modules.mjs', import.meta.url))
const SOURCES = ['--import', 'tsx', '-C', 'fw-source', '--import', probe, 'cli/bin.ts']

interface Run {
  status: number | null
  stdout: string
  stderr: string
  /** The reported modules loaded one by one (URLs ending as `FW_REPORT_MODULES` asks). */
  modules: string[]
}

function run(cwd: string, argv: string[], env: NodeJS.ProcessEnv = {}): Run {
  const result = spawnSync(process.execPath, argv, {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      FW_APP: undefined,
      FW_COMPILE_CACHE: undefined,
      // fw's entry modules, the app's, and a compiled chunk that went to tsx instead of fw's hook.
      FW_REPORT_MODULES: '/kernel/index.ts,/kernel/index.js,/app.ts,/.cache/fw/',
      ...env,
    },
  })
  const lines = result.stderr.split('\n')
  const report = lines.find((l) => l.startsWith('modules: '))
  assert.ok(report, `no report from the probe: ${result.stderr}`)
  return {
    status: result.status,
    stdout: result.stdout,
    stderr: lines.filter((l) => !l.startsWith('modules: ')).join('\n'),
    modules: JSON.parse(report.slice('modules: '.length)) as string[],
  }
}

const OFF = { FW_COMPILE_CACHE: '0' }

/** The routes' paths of `fw route:list --json`. */
function paths(stdout: string): string[] {
  return (JSON.parse(stdout) as { path: string }[]).map((r) => r.path)
}

/**
 * A copy of fw's sources and the playground in a temp folder: its compiled library is its own, and
 * its sources may be edited. Its `node_modules` is a link, as a git worktree's often is, to a folder
 * beside it that links fw's dependencies (the library is compiled into that folder's `.cache/`).
 */
function copyFw(): {
  base: string
  dir: string
  edit(file: string, from: string, to: string): void
} {
  const base = mkdtempSync(join(tmpdir(), 'fw-library-'))
  const dir = join(base, 'fw')
  for (const entry of ['kernel', 'plugins', 'cli', 'playground', 'package.json', 'tsconfig.json']) {
    cpSync(join(repo, entry), join(dir, entry), {
      recursive: true,
      filter: (source) => !source.startsWith(join(repo, 'playground', 'var')),
    })
  }
  symlinkSync(linkDependencies(join(base, 'modules')), join(dir, 'node_modules'))
  return {
    base,
    dir,
    edit(file, from, to) {
      const text = readFileSync(join(dir, file), 'utf8')
      assert.ok(text.includes(from), `${file} does not contain ${from}`)
      writeFileSync(join(dir, file), text.replace(from, to))
    },
  }
}

test('from the sources: lists the same routes, fw loaded from the library, not one by one', () => {
  const argv = [...SOURCES, 'route:list', '--json']
  run(repo, argv) // compiles the library when a source changed since it was last compiled
  const compiled = run(repo, argv)
  const plain = run(repo, argv, OFF)
  assert.is(compiled.status, 0, compiled.stderr)
  assert.is(compiled.stdout, plain.stdout)
  assert.is(compiled.stderr, plain.stderr)
  // The playground is the app: it still runs through tsx, module by module.
  assert.equal(compiled.modules, [`file://${repo}playground/app.ts`])
  assert.equal(plain.modules, [`file://${repo}kernel/index.ts`, `file://${repo}playground/app.ts`])
})

test('from the sources: an edit to fw is compiled in, a broken file fails as without the library', () => {
  const fw = copyFw()
  try {
    const argv = [...SOURCES, 'route:list', '--json']
    const before = run(fw.dir, argv)
    assert.is(before.status, 0, before.stderr)
    assert.ok(paths(before.stdout).includes('account/login2fa'))
    assert.equal(before.modules, [`file://${fw.dir}/playground/app.ts`])

    fw.edit('plugins/auth/account-routes.ts', "r.post('login2fa'", "r.post('login-2fa'")
    const edited = run(fw.dir, argv)
    assert.is(edited.status, 0, edited.stderr)
    assert.ok(paths(edited.stdout).includes('account/login-2fa'), edited.stdout)
    assert.not.ok(paths(edited.stdout).includes('account/login2fa'))
    assert.equal(edited.modules, [`file://${fw.dir}/playground/app.ts`])

    const file = 'plugins/auth/account-routes.ts'
    fw.edit(file, 'async function login2fa(', 'async function login2fa((')
    const broken = run(fw.dir, argv)
    const plain = run(fw.dir, argv, OFF)
    assert.is(broken.status, 1)
    assert.is(broken.stderr, plain.stderr)
    assert.match(broken.stderr, `${fw.dir}/${file}:`)

    fw.edit(file, 'async function login2fa((', 'async function login2fa(')
    const fixed = run(fw.dir, argv)
    assert.is(fixed.status, 0, fixed.stderr)
    assert.is(fixed.stdout, edited.stdout)
    assert.equal(fixed.modules, [`file://${fw.dir}/playground/app.ts`])
  } finally {
    rmSync(fw.base, { recursive: true, force: true })
  }
})

test('built CLI, TypeScript app: fw from its bundle, the app as edited, errors as without', () => {
  const bin = join(repo, 'dist', 'cli', 'bin.js')
  const dir = mkdtempSync(join(tmpdir(), 'fw-ts-app-'))
  try {
    mkdirSync(join(dir, 'node_modules'))
    symlinkSync(repo, join(dir, 'node_modules', 'fw'))
    const app = (routes: string): string => `import { createKernel } from 'fw'
import 'fw/plugins/health'
import { hello } from './hello.js'

export default ({ env }: { env?: NodeJS.ProcessEnv } = {}) => {
  const kernel = createKernel({ root: ${JSON.stringify(dir)}, env })
${routes}
  return kernel
}
`
    writeFileSync(
      join(dir, 'package.json'),
      JSON.stringify({ name: 'ts-app', type: 'module', fw: { app: './app.ts' } }),
    )
    writeFileSync(join(dir, 'hello.ts'), 'export const hello = (): string => "hi"\n')
    writeFileSync(join(dir, 'app.ts'), app("  kernel.router.get('hello', hello).name('hello')"))
    const argv = ['--import', probe, bin, 'route:list', '--json']
    // The app through tsx, which this test is about: otherwise the built CLI runs fw's compiled
    // copy of it and registers no loader hook at all (test/cli/app-copy.test.ts).
    const runTs = (cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Run =>
      run(cwd, args, { FW_APP_COMPILED: '0', ...env })
    // The built library's entries as tsc wrote them, and as the bundle holds them. A bundled
    // module first loaded after tsx was registered (the health plugin's) loads as it is, never
    // reaching tsx nor the probe behind it (cli/load-app.ts).
    const report = {
      FW_REPORT_MODULES: '/app.ts,/kernel/index.js,/kernel-index.js,/.cache/fw/,/plugins-health-',
    }
    const first = runTs(dir, argv, report)
    assert.is(first.status, 0, first.stderr)
    assert.equal(paths(first.stdout), ['hello'])
    // The app's `fw` is the bundle the CLI runs from (scripts/bundle-dist.mjs), nothing compiled
    // for it (tsc's `kernel/index.js` or the library's `.cache/fw/` would be listed): only the app
    // went through tsx.
    const bundled = [`file://${dir}/app.ts`]
    assert.equal(first.modules, bundled)
    const plain = runTs(dir, argv, { ...report, ...OFF })
    assert.is(first.stdout, plain.stdout)
    assert.equal(plain.modules, bundled)

    writeFileSync(
      join(dir, 'app.ts'),
      app(`  kernel.router.get('hello', hello).name('hello')
  kernel.router.get('bye', function bye() { return 'bye' }).name('bye')`),
    )
    const edited = runTs(dir, argv)
    assert.is(edited.status, 0, edited.stderr)
    assert.equal(paths(edited.stdout), ['bye', 'hello'])
    assert.is(edited.stdout, runTs(dir, argv, OFF).stdout)

    writeFileSync(join(dir, 'hello.ts'), 'export const hello = (: string => "hi"\n')
    const broken = runTs(dir, argv)
    assert.is(broken.status, 1)
    assert.match(broken.stderr, `${dir}/hello.ts:1:`)
    assert.is(broken.stderr, runTs(dir, argv, OFF).stderr)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
