// What each `fw make:*` command writes: the file's text for a name, in the layout of `fw new`
// (the app module default-exports what each folder's modules default-export). Checked by
// test/cli/make.test.ts, which type-checks a generated app and runs its tests.
import { plural, type Names } from './scaffold.js'

/** `controllers/<kebab>.ts`: a decorated controller under `/<kebab>`. */
export function controllerFile(n: Names): string {
  return `import { controller, get, type RequestContext } from 'fw'

/** The routes under \`/${n.kebab}\`. */
@controller({ prefix: '${n.kebab}', name: '${n.kebab}.' })
export default class ${n.pascal}Controller {
  /** \`GET /${n.kebab}\` */
  @get('', { name: 'index' })
  index(ctx: RequestContext) {
    return { controller: '${n.kebab}', action: 'index', query: ctx.query }
  }
}
`
}

/** `migrations/<name>.ts`: a migration; `create_<table>` starts with that table. */
export function migrationFile(name: string, n: Names): string {
  const table = /^create_(\w+)$/.exec(n.snake)?.[1]
  const up =
    table === undefined
      ? "    // 'alter table …',"
      : `    'create table ${table} (id serial primary key)',`
  const down = table === undefined ? '    // what undoes it' : `    'drop table ${table}',`
  return `import { defineMigration } from 'fw/plugins/database'

/** Never rename a migration that ran: its name is recorded in \`fw_migrations\`. */
export default defineMigration({
  name: '${name}',
  up: [
${up}
  ],
  down: [
${down}
  ],
})
`
}

/** The table of an entity: its name in snake_case, the last word in the plural. */
export function tableOf(n: Names): string {
  const words = n.snake.split('_')
  return [...words.slice(0, -1), plural(words.at(-1)!)].join('_')
}

/** `entities/<kebab>.ts`: an entity whose table the migration of {@link entityMigrationFile} makes. */
export function entityFile(n: Names): string {
  return `import { deferEntity } from 'fw/plugins/database'

/** A ${n.snake.replaceAll('_', ' ')} (table \`${tableOf(n)}\`), as its migration creates it. */
export class ${n.pascal} {
  id!: number
  name!: string
  created_at: Date = new Date()
}

export default deferEntity(
  ${n.pascal},
  ({ EntitySchema }) =>
    new EntitySchema<${n.pascal}>({
      class: ${n.pascal},
      tableName: '${tableOf(n)}',
      properties: {
        id: { type: 'integer', primary: true, autoincrement: true },
        name: { type: 'string', length: 255 },
        created_at: { type: 'Date', columnType: 'timestamptz' },
      },
    }),
)
`
}

/** The migration that creates an entity's table. */
export function entityMigrationFile(name: string, n: Names): string {
  const table = tableOf(n)
  return `import { defineMigration } from 'fw/plugins/database'

/** The \`${table}\` table of \`entities/${n.kebab}.ts\`. */
export default defineMigration({
  name: '${name}',
  up: [
    \`create table ${table} (
      id serial primary key,
      name varchar(255) not null,
      created_at timestamptz not null default now()
    )\`,
  ],
  down: ['drop table ${table}'],
})
`
}

/** `test/<kebab>.test.ts`: a test of the app on a fresh in-memory database. */
export function testFile(n: Names): string {
  return `import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Kernel } from 'fw'
import { createTestApp } from 'fw/testing'
import createApp from '../app.js'

let kernel: Kernel
before(async () => {
  kernel = await createTestApp(createApp)
})
after(async () => {
  await kernel.close()
})

test('${n.kebab}: GET / answers', async () => {
  const res = await kernel.inject('/')
  assert.equal(res.status, 200)
})
`
}

/** `plugins/<kebab>.ts`: a plugin of the app, registered by \`app.ts\` after fw's. */
export function pluginFile(n: Names): string {
  return `import { definePlugin } from 'fw'

/** The app's \`${n.kebab}\` plugin: its routes, hooks, middleware and commands. */
export default definePlugin({
  name: '${n.kebab}',
  setup(kernel) {
    kernel.router.get('${n.kebab}', () => ({ plugin: '${n.kebab}' })).name('${n.kebab}.index')
  },
})
`
}
