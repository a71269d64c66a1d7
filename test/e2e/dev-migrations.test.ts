// `fw dev` and the app's migrations files (cli/dev/dev-server.ts): a new migration whose `up` is
// still empty (the stub `fw make:migration` writes) is not applied nor recorded, and says so; its
// SQL, once saved, is applied by the next build. A saved change to a migration that ran already
// says that it changes nothing, and how to go on.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  createTempPackage,
  runInCopy,
  until,
  type RunningApp,
  type TempPackage,
} from './dev-process.js'

const test = suite<{ app: TempPackage; running: RunningApp }>('fw dev: migration files')

/** An app whose migrations are the modules of `migrations/`, in the order of their names. */
const APP = `import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { createKernel } from 'fw'
import database from 'fw/plugins/database'
export default ({ env = process.env, root } = {}) => {
  const kernel = createKernel({ root, env })
  const dir = join(root, 'migrations')
  const migrations = () =>
    Promise.all(
      readdirSync(dir).filter((f) => f.endsWith('.mjs')).sort()
        .map((f) => import(pathToFileURL(join(dir, f)).href).then((m) => m.default)),
    )
  kernel.register(database, { migrations })
  kernel.router.get('columns', async () => {
    const rows = await kernel.plugin('database').sql\`
      select column_name as name from information_schema.columns
       where table_name = 'notes' order by ordinal_position\`
    return { columns: rows.map((r) => r.name) }
  })
  return kernel
}
`

const migration = (
  name: string,
  up: string,
) => `import { defineMigration } from 'fw/plugins/database'
export default defineMigration({
  name: '${name}',
  up: [
${up}
  ],
})
`

test.before(async (context) => {
  context.app = createTempPackage({
    app: './app.mjs',
    files: {
      'app.mjs': APP,
      'migrations/20260101000000_create_notes.mjs': migration(
        '20260101000000_create_notes',
        "    'create table notes (id int)',",
      ),
    },
  })
  context.running = await runInCopy(context.app, 'dev')
})

test.after(async ({ app, running }) => {
  await running?.stop()
  app?.remove()
})

const columns = async (url: string): Promise<unknown> =>
  (await (await fetch(`${url}/columns`)).json()) as unknown

test('a stub is not applied; its SQL is, once saved', async ({ app, running }) => {
  assert.equal(await columns(running.url), { columns: ['id'] })
  const file = 'migrations/20260102000000_add_body.mjs'
  app.write(file, migration('20260102000000_add_body', "    // 'alter table …',"))
  await until(
    async () =>
      /20260102000000_add_body is not written yet/.test(running.output()) ? true : undefined,
    'the stub is reported as not written yet',
  )
  assert.not.match(running.output(), /migration applied/)
  app.write(
    file,
    migration('20260102000000_add_body', "    'alter table notes add column body text',"),
  )
  await until(
    async () => (/1 migration applied/.test(running.output()) ? true : undefined),
    'the written migration is applied',
  )
  assert.equal(await columns(running.url), { columns: ['id', 'body'] })
})

test('a change to a migration that ran says it changes nothing', async ({ app, running }) => {
  app.replace('migrations/20260101000000_create_notes.mjs', '(id int)', '(id int, title text)')
  await until(
    async () =>
      /migrations\/20260101000000_create_notes\.mjs changed, but migration 20260101000000_create_notes ran already: changing it does nothing\. Roll it back with fw dev stopped/.test(
        running.output(),
      )
        ? true
        : undefined,
    'the change is reported',
  )
  assert.equal(await columns(running.url), { columns: ['id', 'body'] })
})

test.run()
