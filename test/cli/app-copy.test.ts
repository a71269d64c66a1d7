// A TypeScript app whose `dist/` is not up to date runs, under the compiled CLI, from fw's compiled
// copy (`node_modules/.cache/fw-app/`): made once for a state of the sources, made again when one
// changes, rooted in the source folder, its stack traces naming the sources. Where the copy could
// run differently (an import the copy cannot resolve, a module esbuild refuses) or
// FW_APP_COMPILED=0 says so, tsx runs the sources as before.
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runBuiltCli } from './built-cli.js'
import { createTempPackage, type TempPackage } from '../e2e/dev-process.js'

const test = suite('compiled copy of a TypeScript app')

/** The app writes, into `ran.json` under its root, the URL of its module and what it imported. */
const APP = `import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createKernel, type AppOptions } from 'fw'
import { greeting } from './lib/greeting.js'
export default ({ env, root = '.' }: AppOptions = {}) => {
  if (env?.APP_FAILS) throw new Error('the factory failed on purpose')
  writeFileSync(join(root, 'ran.json'), JSON.stringify({ url: import.meta.url, greeting }))
  return createKernel({ root, env })
}
`
const GREETING = "export const greeting: string = 'hello'\n"

function tempApp(): TempPackage {
  return createTempPackage({
    app: './app.ts',
    files: { 'app.ts': APP, 'lib/greeting.ts': GREETING },
  })
}

/** Runs `fw route:list` in the app: where the app module ran from, and what it imported. */
async function run(
  app: TempPackage,
  env: NodeJS.ProcessEnv = {},
): Promise<{ url: string; greeting: string }> {
  const { code, output } = await runBuiltCli(app.dir, ['route:list'], env)
  assert.is(code, 0, output)
  return JSON.parse(app.read('ran.json')) as { url: string; greeting: string }
}

const copies = (app: TempPackage): string[] => {
  const cache = join(app.dir, 'node_modules', '.cache', 'fw-app')
  return existsSync(cache) ? readdirSync(cache) : []
}

test('runs the copy, rooted in the source folder, and makes it again when a source changes', async () => {
  const app = tempApp()
  try {
    const first = await run(app)
    assert.match(first.url, /\/node_modules\/\.cache\/fw-app\/[0-9a-f]{16}\/app\.js$/)
    assert.is(first.greeting, 'hello')
    assert.equal(copies(app).length, 1)
    // The same sources: the same copy, not made again.
    assert.is((await run(app)).url, first.url)
    app.write('lib/greeting.ts', "export const greeting: string = 'bonjour'\n")
    const second = await run(app)
    assert.is(second.greeting, 'bonjour')
    assert.is.not(second.url, first.url)
  } finally {
    app.remove()
  }
})

test('stack traces name the TypeScript source', async () => {
  const app = tempApp()
  try {
    const { code, output } = await runBuiltCli(app.dir, ['route:list'], {
      APP_FAILS: '1',
      FW_DEBUG: '1',
    })
    assert.is(code, 1)
    assert.match(output, 'the factory failed on purpose')
    assert.match(output, /app\.ts:6:\d+/)
    assert.ok(copies(app).length === 1, 'it ran from the copy')
  } finally {
    app.remove()
  }
})

test('tsx runs the sources where the copy could not run as they do', async () => {
  const cases: Record<string, (app: TempPackage) => void> = {
    // A JSON file beside the module is no module of the copy.
    'a relative import of a JSON file': (app) => {
      app.write('lib/greeting.json', '{ "greeting": "hi" }\n')
      app.write(
        'lib/greeting.ts',
        "import data from './greeting.json' with { type: 'json' }\nexport const greeting: string = data.greeting\n",
      )
    },
    // tsx resolves a `.ts` specifier; the copy has `.js` files only.
    'a .ts specifier': (app) => app.replace('app.ts', './lib/greeting.js', './lib/greeting.ts'),
    // The copy is outside the package: its own name would not resolve from there.
    'an import of the package by its own name': (app) => {
      const pkg = JSON.parse(app.read('package.json')) as Record<string, unknown>
      app.write('package.json', JSON.stringify({ ...pkg, exports: { './lib/*': './lib/*' } }))
      app.replace('app.ts', './lib/greeting.js', 'fw-dev-copy/lib/greeting.js')
    },
    'a tsconfig with paths': (app) =>
      app.write('tsconfig.json', '{ "compilerOptions": { "paths": { "@lib/*": ["./lib/*"] } } }'),
  }
  for (const [name, change] of Object.entries(cases)) {
    const app = tempApp()
    try {
      change(app)
      const ran = await run(app)
      assert.is(ran.url, `file://${join(app.dir, 'app.ts')}`, name)
    } finally {
      app.remove()
    }
  }
})

test('FW_APP_COMPILED=0 runs the sources through tsx', async () => {
  const app = tempApp()
  try {
    const ran = await run(app, { FW_APP_COMPILED: '0' })
    assert.is(ran.url, `file://${join(app.dir, 'app.ts')}`)
    assert.equal(copies(app), [])
  } finally {
    app.remove()
  }
})

test('a module that does not compile is reported as tsx reports it', async () => {
  const app = tempApp()
  try {
    app.write('lib/greeting.ts', 'export const greeting: string = (\n')
    const { code, output } = await runBuiltCli(app.dir, ['route:list'])
    assert.is(code, 1)
    assert.match(output, 'Could not load the app module')
    assert.match(output, 'greeting.ts')
    assert.not.ok(existsSync(join(app.dir, 'ran.json')))
  } finally {
    app.remove()
  }
})

test.run()
