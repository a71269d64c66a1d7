// `fw dev` on a temporary copy of the playground, through HTTP: saved edits are served by the next
// requests with the process's state kept (a row, a signed-in session), a file that fails to load
// leaves the last good build serving, and `fw serve` has none of it.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import {
  copyPlayground,
  runInCopy,
  until,
  type PlaygroundCopy,
  type RunningApp,
} from './dev-process.js'
import { startFw } from '../fixtures/fw-process.js'

interface Context {
  db: TestDatabase
  copy: PlaygroundCopy
  app: RunningApp
  product: number
  session: { session: string; csrf: string }
}

const test = suite<Context>('fw dev')
const API = { apikey: 'demo-api-key', accept: 'application/json' }

function cookieOf(res: Response, name: string): string | undefined {
  for (const line of res.headers.getSetCookie()) {
    const match = new RegExp(`^${name}=([^;]*)`).exec(line)
    if (match !== null) return match[1]
  }
  return undefined
}

async function signIn(url: string, username: string): Promise<{ session: string; csrf: string }> {
  const form = await fetch(`${url}/login`)
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!
  const res = await fetch(`${url}/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `fw_login_csrf=${cookieOf(form, 'fw_login_csrf')}`,
    },
    body: new URLSearchParams({ _csrf: csrf, username, password: `${username}-pass` }).toString(),
  })
  assert.is(res.status, 303, await res.text())
  const session = cookieOf(res, 'fw_session')!
  const page = await fetch(`${url}/login`, { headers: { cookie: `fw_session=${session}` } })
  const token = /<meta name="csrf" content="([^"]+)">/.exec(await page.text())![1]!
  return { session, csrf: token }
}

/** `GET url`, asking for JSON. */
const getJson = (url: string) => fetch(url, { headers: { accept: 'application/json' } })

/** The answer of `GET url` once it is 200: a route the edited app declares is served. */
const servedAt = (url: string, what: string) =>
  until(async () => {
    const res = await getJson(url)
    return res.status === 200 ? res : undefined
  }, what)

/** Adds `lines` to the setup of the copy's plugin, after its routes are declared. */
function addToSetup(copy: PlaygroundCopy, lines: string): void {
  copy.replace('plugin.ts', '    declareRoutes(kernel)\n', `    declareRoutes(kernel)\n${lines}`)
}

async function ping(url: string): Promise<number> {
  return ((await (await getJson(`${url}/_demo/ping`)).json()) as { n: number }).n
}

/** Answers when `GET /_demo/ping` says `n`. */
const pingSays = (url: string, n: number) => async () =>
  (await ping(url)) === n ? true : undefined

/** The state the reload stream gives a page that opens it now. */
async function channelState(
  url: string,
): Promise<{ build: number; failure: { file?: string; message: string } | null }> {
  const controller = new AbortController()
  const res = await fetch(`${url}/_fw/dev/events`, { signal: controller.signal })
  const reader = res.body!.getReader()
  let text = ''
  while (!text.includes('\n\n', text.indexOf('event: hello'))) {
    const { value, done } = await reader.read()
    if (done) break
    text += new TextDecoder().decode(value)
  }
  controller.abort()
  const data = /event: hello\ndata: (.*)\n/.exec(text)![1]!
  return JSON.parse(data) as { build: number; failure: { file?: string; message: string } | null }
}

async function stillKept(context: Context): Promise<void> {
  const row = await fetch(`${context.app.url}/api/v1/products/${context.product}`, { headers: API })
  assert.is(row.status, 200, 'the row inserted before the edit is still there')
  assert.match(await row.text(), 'kept across reloads')
  const me = await fetch(`${context.app.url}/api/v1/me`, {
    headers: {
      accept: 'application/json',
      cookie: `fw_session=${context.session.session}`,
      'x-csrf-token': context.session.csrf,
    },
  })
  assert.is(me.status, 200, 'the signed-in session still works')
  assert.is(((await me.json()) as { username: string }).username, 'editor')
}

test.before(async (context) => {
  // PGlite in memory; with DATABASE_URL=postgresql://…, a fresh database of the suite's own.
  context.db = await createTestDatabase()
  context.copy = copyPlayground()
  context.app = await runInCopy(context.copy, 'dev', { DATABASE_URL: context.db.url })
  const created = await fetch(`${context.app.url}/api/v1/products`, {
    method: 'POST',
    headers: { ...API, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'kept across reloads', sku: 'DEV-KEPT-1', price: 1, stock: 1 }),
  })
  const text = await created.text()
  assert.is(created.status, 201, text)
  const body = JSON.parse(text) as { data?: { id: number }; id?: number }
  context.product = body.data?.id ?? body.id!
  context.session = await signIn(context.app.url, 'editor')
})

test.after(async (context) => {
  await context.app?.stop()
  context.copy?.remove()
  await context.db?.drop()
})

test('serves an edited controller by the next requests, with the row and the session kept', async (context) => {
  const { app, copy } = context
  assert.is(await ping(app.url), 1)
  copy.replace('controllers/demo.ts', 'n: 1 }', 'n: 41 }')
  await until(pingSays(app.url, 41), 'the edited controller is served')
  await stillKept(context)
  await until(
    async () =>
      /controllers\/demo\.ts changed: app rebuilt.*\(\d+ ms\)/.test(app.output())
        ? true
        : undefined,
    'one console line says what changed, what was rebuilt and how long it took',
  )
})

test('a file that fails to load leaves the last good code serving, reported until a save fixes it', async (context) => {
  const { app, copy } = context
  copy.replace('controllers/demo.ts', 'n: 41 }', 'n: 42 ') // an unclosed object literal
  const failure = await until(
    async () => (await channelState(app.url)).failure ?? undefined,
    'the reload stream reports the failure',
  )
  assert.is(failure.file, 'controllers/demo.ts')
  assert.is(await ping(app.url), 41, 'the previous body is still served')
  await until(
    async () => (/did not load/.test(app.output()) ? true : undefined),
    'the console reports the failure',
  )
  assert.match(app.output(), /controllers\/demo\.ts:\d+:\d+: /)
  assert.match(app.output(), /> +\d+ \| /, 'with a code frame')
  copy.replace('controllers/demo.ts', 'n: 42 ', 'n: 42 }')
  await until(pingSays(app.url, 42), 'the fix is served')
  assert.is((await channelState(app.url)).failure, null, 'the overlay is gone')
  assert.is(app.output().match(/did not load/g)?.length, 1, 'the error was printed once')
  await stillKept(context)
})

test('a route that throws while registering leaves the last good build serving', async (context) => {
  const { app, copy } = context
  copy.replace(
    'plugin.ts',
    "  router.get('/', home)",
    "  throw new Error('broken while registering')\n  router.get('/', home)",
  )
  await until(
    async () => (/broken while registering/.test(app.output()) ? true : undefined),
    'the failure is reported',
  )
  assert.match(
    app.output(),
    /plugin\.ts:\d+:\d+: Error: broken while registering|plugin\.ts:\d+:\d+: broken while registering/,
  )
  assert.is(await ping(app.url), 42)
  copy.replace('plugin.ts', "  throw new Error('broken while registering')\n", '')
  await until(
    async () => ((await channelState(app.url)).failure === null ? true : undefined),
    'fixed',
  )
})

test("rebuilds after a plugin's setup changed, with the data kept; an added route is served, a removed one 404s", async (context) => {
  const { app, copy } = context
  addToSetup(
    copy,
    "    kernel.router.get('_demo/added', () => ({ added: 1 }))\n    kernel.hooks.annotate.tap('edited', (reply) => void reply.header('x-edited', 'yes'))\n",
  )
  const added = await servedAt(`${app.url}/_demo/added`, 'the added route is served')
  assert.is(added.headers.get('x-edited'), 'yes', "the plugin's new tap runs")
  await stillKept(context)
  copy.replace('plugin.ts', "'_demo/added'", "'_demo/renamed'")
  await servedAt(`${app.url}/_demo/renamed`, 'the renamed route is served')
  assert.is((await fetch(`${app.url}/_demo/added`)).status, 404, 'the old path is gone at once')
})

test('a new migration is applied on the kept database', async (context) => {
  const { app, copy } = context
  copy.write(
    'migrations/20261126120000-dev-notes.ts',
    `import { defineMigration } from 'fw/plugins/database'
export const DevNotes = defineMigration({
  name: 'Migration20261126120000_dev_notes',
  up: ['create table "dev_notes" ("id" serial primary key, "text" text not null)', "insert into \\"dev_notes\\" (\\"text\\") values ('hello')"],
})
`,
  )
  copy.replace(
    'migrations/index.ts',
    "import { CreatePlaygroundTables } from './20261121120000-create-playground-tables.js'",
    "import { CreatePlaygroundTables } from './20261121120000-create-playground-tables.js'\nimport { DevNotes } from './20261126120000-dev-notes.js'",
  )
  copy.replace(
    'migrations/index.ts',
    'class: CreatePlaygroundTables },',
    'class: CreatePlaygroundTables },\n  DevNotes,',
  )
  addToSetup(
    copy,
    "    kernel.router.get('_demo/notes', async () => ({ notes: await kernel.plugin('database').runStatement({ sql: 'select count(*)::int as n from dev_notes', bindings: [] }) }))\n",
  )
  const notes = await servedAt(`${app.url}/_demo/notes`, 'the migrated table is read')
  assert.is(((await notes.json()) as { notes: { n: number }[] }).notes[0]!.n, 1)
  await stillKept(context)
})

test('a view is served as saved; .env is read anew', async (context) => {
  const { app, copy } = context
  copy.replace('views/home.eta', 'the demo app of fw', 'the demo app of fw, edited')
  await until(
    async () => ((await (await fetch(app.url)).text()).includes('fw, edited') ? true : undefined),
    'the edited view',
  )
  copy.write('.env', 'FW_CONFIG={"app":{"name":"from-dotenv"}}\n')
  await until(
    async () => ((await (await fetch(app.url)).text()).includes('from-dotenv') ? true : undefined),
    '.env read anew',
  )
  await stillKept(context)
})

test("a save through a temporary file names only the saved file; a build's dist/ is no change", async (context) => {
  const { app, copy } = context
  // Only what is reported after this save counts: an earlier test reported home.eta already.
  const reportedSince = (from: number): string[] =>
    app
      .output()
      .slice(from)
      .split('\n')
      .filter((line) => line.startsWith('fw dev: ') && line.includes(' changed'))
  const from = app.output().length
  // As `sed -i` saves: a temporary file beside the target, renamed over it; and as a build
  // starts: dist/ made and removed.
  mkdirSync(join(copy.root, 'dist'))
  rmSync(join(copy.root, 'dist'), { recursive: true })
  const temporary = join(copy.root, 'views', 'sedAb12Cd')
  writeFileSync(temporary, copy.read('views/home.eta').replace('fw, edited', 'fw, sed'))
  renameSync(temporary, join(copy.root, 'views', 'home.eta'))
  await until(
    async () => ((await (await fetch(app.url)).text()).includes('fw, sed') ? true : undefined),
    'the view saved through a temporary file',
  )
  const saved = await until(
    async () => reportedSince(from).find((line) => line.includes('home.eta')),
    'the change reported',
  )
  assert.ok(saved.startsWith('fw dev: views/home.eta changed: served as is'), saved)
  const reported = reportedSince(from)
  assert.not.ok(
    reported.some((line) => line.includes('sedAb12Cd') || line.startsWith('fw dev: dist')),
    reported.join('\n'),
  )
})

test('a request that fails is told on the terminal', async ({ app, copy }) => {
  const saved = copy.read('views/home.eta')
  copy.write('views/home.eta', `${saved}<%~ include('no-such-partial') %>`)
  try {
    await until(
      async () => ((await fetch(app.url)).status === 500 ? true : undefined),
      'the broken view served',
    )
    const line = await until(
      async () =>
        app
          .output()
          .split('\n')
          .find((l) => l.startsWith('fw dev: GET / answered 500: ')),
      'the failure on the terminal',
    )
    assert.match(line, 'no-such-partial')
  } finally {
    copy.write('views/home.eta', saved)
  }
})

test('fw serve has no watcher, no reload stream, no page script', async ({ copy, db }) => {
  const served = await runInCopy(copy, 'serve', { DATABASE_URL: db.url })
  try {
    assert.is((await fetch(`${served.url}/_fw/dev/events`)).status, 404)
    assert.is((await fetch(`${served.url}/_fw/dev/client.js`)).status, 404)
    const page = await (await fetch(served.url)).text()
    assert.ok(page.includes('</body>'))
    assert.not.match(page, '/_fw/dev/')
    const before = await ping(served.url)
    copy.replace('controllers/demo.ts', 'n: 42 }', 'n: 43 }')
    // Twenty requests after the save: a watcher would have reloaded by then (fw dev takes ~0.1 s).
    for (let i = 0; i < 20; i++) assert.is(await ping(served.url), before)
  } finally {
    await served.stop()
  }
})

test('under NODE_ENV=production fw dev is fw serve: no reload stream, no page script', async ({
  copy,
  db,
}) => {
  const served = await runInCopy(copy, 'dev', { NODE_ENV: 'production', DATABASE_URL: db.url })
  try {
    assert.not.match(served.output(), 'reloads on save')
    assert.is((await fetch(`${served.url}/_fw/dev/events`)).status, 404)
    const page = await (await fetch(served.url)).text()
    assert.ok(page.includes('</body>'))
    assert.not.match(page, '/_fw/dev/')
  } finally {
    await served.stop()
  }
})

test('a stopped fw dev leaves nothing open: its process ends as its event loop empties', async ({
  copy,
  db,
}) => {
  const preload = new URL('../fixtures/loop-drained.mjs', import.meta.url).href
  const dev = await startFw({
    command: 'dev',
    cwd: copy.dir,
    env: { DATABASE_URL: db.url, FW_APP_KEY: 'base64:fw-dev-suite-key' },
    nodeArgs: ['--import', preload],
  })
  assert.is(await dev.stop(), 0, dev.output())
  assert.match(dev.output(), /fw: stopped\.\nevent loop drained\n/)
})

test.run()
