import { Command, Option, UsageError } from 'clipanion'
import { builtinCommand } from '../builtin-command.js'
import { pluginEntitiesOf } from '../boot-record.js'
import type { Kernel } from 'fw'
import type { FwContext } from '../context.js'
import { loadApp } from '../load-app.js'
import {
  controllerFile,
  entityFile,
  entityMigrationFile,
  migrationFile,
  pluginFile,
  tableOf,
  testFile,
} from './make-templates.js'
import { appFolder, migrationStamp, namesOf, spell, writeFiles, type NewFile } from './scaffold.js'

/** fw's own plugins: an app's plugin of the same name would be refused at register. */
const FW_PLUGINS = new Set([
  'admin',
  'api',
  'auth',
  'database',
  'debug',
  'health',
  'list',
  'logging',
  'openapi',
  'telemetry',
  'views',
])

/** The base of the generators: the name, `--force`, the app's folder, and writing. */
function makeCommand(path: string) {
  abstract class MakeCommand extends builtinCommand(path, { needsApp: false }) {
    name = Option.String({ name: 'name' })
    force = Option.Boolean('--force', false, { description: 'Replace files that exist' })

    /** The files to write for `this.name`, relative to the app's folder. */
    abstract files(root: string): NewFile[]

    override async execute(): Promise<number> {
      const { env, stdout, stderr, bootRecord } = this.context
      const root = appFolder(this.context.kernel.root, env)
      // Whether the record of the last boot is fresh, read before the files are written.
      bootRecord?.pluginEntities()
      const code = writeFiles(root, this.files(root), { force: this.force, stdout, stderr })
      // New files from a template contribute no command, serve flag nor entity of a plugin: the
      // record stays fresh (test/cli/make.test.ts "checks entity names from the last boot"). A
      // file replaced (`--force`) may have, so the next command boots the app again.
      if (code === 0 && !this.force) bootRecord?.keepFresh()
      return code
    }
  }
  return MakeCommand
}

function details(what: string): string {
  return `${what}\n\nThe name is checked and normalised (\`BlogPost\`, \`blog_post\` and \`blog-post\` are one name). An existing file is never replaced: the command writes nothing and exits 1, unless \`--force\`. It prints each file it writes, relative to the app's folder (the folder of \`fw.app\`).`
}

const USAGE = { category: 'Generators' } as const

/** `fw make:controller <name>`: `controllers/<name>.ts`. */
export class MakeControllerCommand extends makeCommand('make:controller') {
  static override usage = Command.Usage({
    ...USAGE,
    description: 'Write a controller into controllers/',
    details: details(
      'Writes `controllers/<name>.ts`: a controller class whose routes are under `/<name>` (named `<name>.…`), with `GET /<name>`. The app registers every module of `controllers/`.',
    ),
    examples: [['A controller under /blog-posts', '$0 make:controller blog-posts']],
  })

  files(): NewFile[] {
    const words = namesOf(this.name, 'controller', 'blog-posts').kebab.split('-')
    const n =
      words.length > 1 && words.at(-1) === 'controller' ? spell(words.slice(0, -1)) : spell(words)
    return [{ path: `controllers/${n.kebab}.ts`, content: controllerFile(n) }]
  }
}

/** The file name and recorded name of a new migration: `Migration<timestamp>_<snake>`. */
function migrationName(root: string, snake: string): string {
  return `Migration${migrationStamp(root)}_${snake}`
}

/** `fw make:migration <name>`: `migrations/Migration<timestamp>_<name>.ts`. */
export class MakeMigrationCommand extends makeCommand('make:migration') {
  static override usage = Command.Usage({
    ...USAGE,
    description: 'Write a migration into migrations/',
    details: details(
      'Writes `migrations/Migration<timestamp>_<name>.ts` (UTC, `YYYYMMDDHHMMSS`; later than every migration there), named as the auth plugin names its own, with `up` and `down` to fill in; `create_<table>` starts with that table. `fw migrate` (and `fw dev`, `fw serve`) applies it.',
    ),
    examples: [
      ['A migration that adds a column', '$0 make:migration add_body_to_notes'],
      ['A migration that creates a table', '$0 make:migration create_tags'],
    ],
  })

  files(root: string): NewFile[] {
    const n = namesOf(this.name, 'migration', 'add_body_to_notes')
    const name = migrationName(root, n.snake)
    return [{ path: `migrations/${name}.ts`, content: migrationFile(name, n) }]
  }
}

/**
 * The plugin of the app that already has an entity of class `className`, or undefined. MikroORM
 * refuses two entities of one name, at `fw migrate` only: the generator refuses it before writing
 * (test/cli/make.test.ts "refuses an entity name a plugin has"). The names come from the record of
 * the app's last boot when no source changed since; otherwise the app is loaded and booted as
 * `fw route:list` does (the database is not opened), and recorded for the next command
 * (test/cli/make.test.ts "checks entity names from the last boot"). The app's own entities are
 * files of `entities/`, which the generator never overwrites without `--force`. An app that does
 * not load is said so, and not checked.
 */
async function pluginWithEntity(
  context: FwContext,
  className: string,
): Promise<string | undefined> {
  const recorded = context.bootRecord?.pluginEntities()
  if (recorded !== undefined) return recorded.find((e) => e.className === className)?.plugin
  const loadedAt = Date.now()
  let kernel: Kernel
  try {
    kernel = await loadApp({ cwd: context.kernel.root, env: context.env })
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error)
    context.stderr.write(`fw: the app did not load, so its entity names were not checked: ${why}\n`)
    return undefined
  }
  try {
    context.bootRecord?.record(kernel, loadedAt)
    return pluginEntitiesOf(kernel).find((e) => e.className === className)?.plugin
  } finally {
    await kernel.close()
  }
}

/** `fw make:entity <Name>`: `entities/<name>.ts` and the migration of its table. */
export class MakeEntityCommand extends makeCommand('make:entity') {
  static override usage = Command.Usage({
    ...USAGE,
    description: 'Write an entity into entities/, and the migration of its table',
    details: details(
      "Writes `entities/<name>.ts` (class `<Name>`, table `<names>`: `id`, `name`, `created_at`) and `migrations/Migration<timestamp>_create_<names>.ts`, which creates that table. Add properties to both. A name that an entity of one of the app's plugins has (the auth plugin's `User`) is refused: an app has one entity of a name.",
    ),
    examples: [['The entity Note (table notes)', '$0 make:entity Note']],
  })

  override async execute(): Promise<number> {
    const { pascal } = namesOf(this.name, 'entity', 'Note or BlogPost')
    const plugin = await pluginWithEntity(this.context, pascal)
    if (plugin !== undefined)
      throw new UsageError(
        `The ${plugin} plugin already has an entity named ${pascal}, and an app has one entity of a name: nothing written. Pick another name (e.g. ${pascal}Profile), or use the ${plugin} plugin's.`,
      )
    return super.execute()
  }

  files(root: string): NewFile[] {
    const n = namesOf(this.name, 'entity', 'Note or BlogPost')
    const name = migrationName(root, `create_${tableOf(n)}`)
    return [
      { path: `entities/${n.kebab}.ts`, content: entityFile(n) },
      { path: `migrations/${name}.ts`, content: entityMigrationFile(name, n) },
    ]
  }
}

/** `fw make:test <name>`: `test/<name>.test.ts`. */
export class MakeTestCommand extends makeCommand('make:test') {
  static override usage = Command.Usage({
    ...USAGE,
    description: 'Write a test into test/',
    details: details(
      'Writes `test/<name>.test.ts`: the app built by `createTestApp` (fw/testing) on a fresh in-memory database, migrated, and a first test of `GET /`. `npm test` runs it.',
    ),
    examples: [['A test file for notes', '$0 make:test notes']],
  })

  files(): NewFile[] {
    const n = namesOf(this.name, 'test', 'notes')
    return [{ path: `test/${n.kebab}.test.ts`, content: testFile(n) }]
  }
}

/** `fw make:plugin <name>`: `plugins/<name>.ts`. */
export class MakePluginCommand extends makeCommand('make:plugin') {
  static override usage = Command.Usage({
    ...USAGE,
    description: 'Write a plugin of the app into plugins/',
    details: details(
      "Writes `plugins/<name>.ts`: a plugin named `<name>` with one route, `GET /<name>`. The app registers every module of `plugins/`, after fw's plugins. For a plugin package of its own, use `fw create:plugin`.",
    ),
    examples: [['A plugin named audit', '$0 make:plugin audit']],
  })

  files(): NewFile[] {
    const n = namesOf(this.name, 'plugin', 'audit')
    if (FW_PLUGINS.has(n.kebab))
      throw new UsageError(`'${n.kebab}' is the name of an fw plugin: pick another.`)
    return [{ path: `plugins/${n.kebab}.ts`, content: pluginFile(n) }]
  }
}

/** The generators, in the order `fw --help` lists them. */
export const MAKE_COMMANDS = [
  MakeControllerCommand,
  MakeEntityCommand,
  MakeMigrationCommand,
  MakePluginCommand,
  MakeTestCommand,
]
