// `fw new`: the CLI as a child process writes a complete app outside any app; its package.json
// depends on fw as the running fw was installed; a busy folder or an unusable name is refused.
// (That the app's tests pass and its generators work: make.test.ts; installed from the packed
// tarball and served: test/e2e/new-app.test.ts.)
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runCli } from 'fw/testing'
import { installedSpec, packageName, shellPath } from '../../cli/commands/new.js'
import { repoRoot } from '../docs/examples.js'

const test = suite('fw new')
const work = mkdtempSync(join(tmpdir(), 'fw-new-'))

interface Pkg {
  name: string
  type: string
  fw: { app: string }
  scripts: Record<string, string>
  dependencies: Record<string, string>
  devDependencies: Record<string, string>
}

test('writes the layout, package.json and the app files, outside any app', async () => {
  const { code, stdout, stderr } = await runCli(['new', 'Book Marks'], { cwd: work })
  assert.is(code, 0, stderr)
  const dir = join(work, 'Book Marks')
  for (const file of [
    'package.json',
    'tsconfig.json',
    'app.ts',
    'controllers/home.ts',
    'controllers/status.ts',
    'views/layout.eta',
    'views/home.eta',
    'views/login.eta',
    'entities/.gitkeep',
    'migrations/.gitkeep',
    'plugins/.gitkeep',
    'public/assets/style.css',
    'test/home.test.ts',
    'test/api.test.ts',
    '.env.example',
    '.gitignore',
    'README.md',
  ]) {
    assert.ok(existsSync(join(dir, file)), file)
    assert.match(stdout, `created ${file}\n`)
  }
  assert.match(stdout, 'npm install')
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Pkg
  // The name from the folder, made a valid package name.
  assert.is(pkg.name, 'book-marks')
  assert.is(pkg.type, 'module')
  assert.equal(pkg.fw, { app: './app.ts' })
  assert.equal(Object.keys(pkg.scripts).sort(), ['build', 'dev', 'migrate', 'start', 'test'])
  assert.is(pkg.scripts.dev, 'fw dev')
  assert.is(pkg.scripts.start, 'fw serve')
  assert.is(pkg.scripts.migrate, 'fw migrate')
  // Run from this checkout (no node_modules above it): fw by its folder.
  assert.is(pkg.dependencies.fw, `file:${repoRoot.replace(/\/$/, '')}`)
  assert.equal(Object.keys(pkg.devDependencies).sort(), ['@types/node', 'tsx', 'typescript'])
  const read = (f: string): string => readFileSync(join(dir, f), 'utf8')
  assert.match(read('app.ts'), "app: { name: 'book-marks' }")
  assert.not.match(read('views/layout.eta'), '__APP_NAME__')
  // Every placeholder replaced, however a formatter rewrote it (`**APP_NAME**` in markdown).
  for (const file of readdirSync(dir, { recursive: true }) as string[]) {
    if (statSync(join(dir, file)).isFile()) assert.not.match(read(file), 'APP_NAME', file)
  }
  assert.is(read('README.md').split('\n')[0], '# book-marks')
  for (const variable of ['NODE_ENV', 'DATABASE_URL', 'FW_APP_KEY', 'PORT', 'HOST', 'FW_CONFIG'])
    assert.match(read('.env.example'), `# ${variable}=`, variable)
  assert.equal(read('.gitignore').split('\n').filter(Boolean), [
    'node_modules/',
    'dist/',
    'var/',
    '.env',
  ])
})

test('prints a cd line a shell accepts, relative to where fw ran', async () => {
  const elsewhere = mkdtempSync(join(tmpdir(), 'fw-new-far-'))
  const target = join(work, 'odd', "It's My App!")
  const { code, stdout, stderr } = await runCli(['new', target], { cwd: elsewhere })
  assert.is(code, 0, stderr)
  const line = /^ {2}cd (.+)$/m.exec(stdout)?.[1]
  assert.ok(line, stdout)
  assert.ok(line.startsWith("'../"), line)
  // The line as a user pastes it: the shell lands in the app.
  const landed = execFileSync('sh', ['-c', `cd ${line} && pwd -P`], { cwd: elsewhere })
  assert.is(landed.toString().trim(), realpathSync(target))
  assert.is(shellPath('plain/dir-1'), 'plain/dir-1')
  assert.is(shellPath('My App', 'win32'), '"My App"')
})

test('--fw gives the dependency spec as is', async () => {
  const { code, stderr } = await runCli(['new', 'pinned', '--fw', '^0.1.0'], { cwd: work })
  assert.is(code, 0, stderr)
  const pkg = JSON.parse(readFileSync(join(work, 'pinned', 'package.json'), 'utf8')) as Pkg
  assert.is(pkg.dependencies.fw, '^0.1.0')
})

test('refuses a folder that is not empty, and a name with no letter or digit', async () => {
  mkdirSync(join(work, 'busy'))
  writeFileSync(join(work, 'busy', 'keep.txt'), 'mine')
  const busy = await runCli(['new', 'busy'], { cwd: work })
  assert.is(busy.code, 1)
  assert.match(busy.stderr, 'exists and is not empty')
  assert.is(readFileSync(join(work, 'busy', 'keep.txt'), 'utf8'), 'mine')
  assert.not.ok(existsSync(join(work, 'busy', 'package.json')))
  const bad = await runCli(['new', '___'], { cwd: work })
  assert.is(bad.code, 1)
  assert.match(bad.stderr, 'gives no package name')
})

test('depends on fw as npm installed it: a tarball or folder by path, else the version', () => {
  const install = mkdtempSync(join(tmpdir(), 'fw-install-'))
  const root = join(install, 'node_modules', 'fw')
  mkdirSync(root, { recursive: true })
  const fw = { root, version: '1.2.3', ranges: {}, node: undefined }
  const lock = (resolved: string): void =>
    writeFileSync(
      join(install, 'node_modules', '.package-lock.json'),
      JSON.stringify({ packages: { 'node_modules/fw': { version: '1.2.3', resolved } } }),
    )
  lock('file:../fw-1.2.3.tgz')
  assert.is(installedSpec(fw), `file:${join(tmpdir(), 'fw-1.2.3.tgz')}`)
  lock('https://registry.npmjs.org/fw/-/fw-1.2.3.tgz')
  assert.is(installedSpec(fw), '^1.2.3')
  assert.is(installedSpec({ ...fw, root: '/src/fw' }), 'file:/src/fw')
  assert.is(packageName('/x/My_App'), 'my_app')
})

test.run()
