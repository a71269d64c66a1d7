import { readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { Cli, Command, type CommandClass, type Usage } from 'clipanion'
// The kernel's small file helper, not `fw`: importing `fw` would load the kernel on `fw --help`.
import { writeFileAtomic } from '../kernel/files.js'
import type { FwContext, PluginEntity } from './context.js'
import type { ServeFlag } from './commands/serve.js'
import { findApp, type AppLocation } from './load-app.js'
import { newerSourceExists, packageRoot } from './prefer-compiled.js'

/**
 * What `fw --help` needs to know of a command a plugin contributed, without booting the app: its
 * paths, its usage line as fw prints it (`fw api:docs [--output <output>]`) and its `usage` texts.
 */
export interface ManifestCommand {
  readonly paths: string[][]
  readonly usage: string
  /** Whether the class has a `usage` at all: clipanion's general help lists only those that do. */
  readonly documented: boolean
  readonly category?: string
  readonly description?: string
  readonly details?: string
  readonly examples?: [string, string][]
}

/** The manifest's layout: a manifest of another is not read (the next boot rewrites it). */
const FORMAT = 4

/** The commands the app's plugins contributed when it last booted for a command, and for what. */
export interface CommandManifest {
  readonly format: typeof FORMAT
  /** What the commands depend on besides the files: fw's version, the app module, the config. */
  readonly key: string
  /** When the app that contributed them started loading (ms): a file changed later voids them. */
  readonly stamp: number
  readonly commands: ManifestCommand[]
  /** The `fw serve --require-<name>` flags the app's plugins declared (`kernel.serveOptions`). */
  readonly serveFlags: ServeFlag[]
  /** The entities the app's plugins declared (`fw make:entity` refuses their names). */
  readonly entities: PluginEntity[]
}

/** What a boot contributes to the manifest, and when the app started loading. */
export type ManifestContent = Omit<CommandManifest, 'format' | 'key'>

/** Where the manifest of an app lives, and what to compare with it. */
export interface ManifestPlace {
  readonly file: string
  readonly key: string
  /** The folder whose sources (walked) make the command set: the app's package, else its folder. */
  readonly sources: string
  /** Single files whose change voids it too: package.json and lockfiles (installs, updates). */
  readonly files: readonly string[]
}

const LOCKS = [
  'package.json',
  'package-lock.json',
  'npm-shrinkwrap.json',
  'yarn.lock',
  'pnpm-lock.yaml',
  join('node_modules', '.package-lock.json'),
]

/**
 * The manifest's place for the app the CLI would load: `var/cache/fw-commands.json` beside the app
 * module (the playground's is `playground/var/cache/fw-commands.json`). Throws as
 * {@link findApp} does when there is no app.
 */
export function manifestPlace(
  cwd: string,
  env: NodeJS.ProcessEnv,
  version: string | undefined,
): ManifestPlace {
  const location: AppLocation = findApp(cwd, env)
  const appDir = dirname(location.file)
  const pkg = location.from === 'FW_APP' ? packageRoot(appDir) : dirname(location.from)
  return {
    file: join(appDir, 'var', 'cache', 'fw-commands.json'),
    key: JSON.stringify([version, location.file, env.FW_CONFIG ?? '', env.NODE_ENV ?? '']),
    sources: location.from === 'FW_APP' ? appDir : dirname(location.from),
    files: pkg === undefined ? [] : LOCKS.map((name) => join(pkg, name)),
  }
}

function changedSince(place: ManifestPlace, stamp: number): boolean {
  for (const file of place.files) {
    try {
      if (statSync(file).mtimeMs > stamp) return true
    } catch {
      // Not there: nothing changed.
    }
  }
  return newerSourceExists(place.sources, stamp)
}

/**
 * The manifest, when it was written for the same key and no source of the app (nor its
 * package.json or lockfile) changed since the app that wrote it started loading; else undefined.
 */
export function readManifest(place: ManifestPlace): CommandManifest | undefined {
  try {
    const manifest = JSON.parse(readFileSync(place.file, 'utf8')) as CommandManifest
    if (manifest.format !== FORMAT || manifest.key !== place.key) return undefined
    if (typeof manifest.stamp !== 'number' || !Array.isArray(manifest.commands)) return undefined
    if (!Array.isArray(manifest.serveFlags) || !Array.isArray(manifest.entities)) return undefined
    return changedSince(place, manifest.stamp) ? undefined : manifest
  } catch {
    return undefined
  }
}

/** Describes the commands registered on `cli` for a manifest. */
export function describeCommands(
  cli: Cli<FwContext>,
  classes: readonly CommandClass<FwContext>[],
): ManifestCommand[] {
  return classes.map((cls) => {
    const usage: Usage = cls.usage ?? {}
    return {
      paths: (cls.paths ?? []).map((p) => [...p]),
      usage: cli.usage(cls, { colored: false, detailed: false, prefix: '' }).trimEnd(),
      documented: cls.usage !== undefined,
      ...(usage.category === undefined ? {} : { category: usage.category }),
      ...(usage.description === undefined ? {} : { description: usage.description }),
      ...(usage.details === undefined ? {} : { details: usage.details }),
      ...(usage.examples === undefined ? {} : { examples: usage.examples }),
    }
  })
}

/**
 * Writes the manifest (a temp file renamed over it), and returns it. A folder that cannot be
 * written only costs the next `fw --help` a boot: failures are ignored.
 */
export function writeManifest(place: ManifestPlace, content: ManifestContent): CommandManifest {
  const manifest: CommandManifest = { ...content, format: FORMAT, key: place.key }
  try {
    writeFileAtomic(place.file, `${JSON.stringify(manifest, null, 2)}\n`)
  } catch {
    // Read-only app folder: the manifest is a cache.
  }
  return manifest
}

/** What clipanion's `getUsageByIndex` returns. */
type UsageLine = {
  usage: string
  options: { definition: string; description: string; required: boolean }[]
}

/**
 * A clipanion CLI that can also list commands known only from a manifest: each is registered as a
 * stand-in with the same paths and usage texts, printed with the usage line the real command had.
 * A stand-in never runs: the CLI boots the app for any argv that names a contributed command.
 */
export class ListingCli extends Cli<FwContext> {
  readonly #usageLines = new Map<CommandClass<FwContext>, string>()
  /** A section `fw --help` prints after the commands: its title, and its lines as they are. */
  generalNote: { readonly title: string; readonly text: string } | undefined

  override usage(
    command: CommandClass<FwContext> | Command<FwContext> | null = null,
    opts: { colored?: boolean; detailed?: boolean; prefix?: string } = {},
  ): string {
    const text = super.usage(command, opts)
    if (command !== null || this.generalNote === undefined) return text
    const { title, text: lines } = this.generalNote
    return `${text}\n${this.format(opts.colored).header(title)}\n\n${lines}\n`
  }

  /** Registers a stand-in for a command of the manifest. */
  registerStandIn(entry: ManifestCommand): CommandClass<FwContext> {
    const standIn = class extends Command<FwContext> {
      static override paths = entry.paths
      static override usage: Usage | undefined = entry.documented
        ? {
            category: entry.category,
            description: entry.description,
            details: entry.details,
            examples: entry.examples,
          }
        : undefined
      override async execute(): Promise<number> {
        throw new Error(`'fw ${entry.paths[0]?.join(' ') ?? ''}' was listed from the manifest only`)
      }
    }
    this.register(standIn)
    this.#usageLines.set(standIn, entry.usage)
    return standIn
  }

  protected override getUsageByIndex(
    n: number,
    opts?: { detailed?: boolean; inlineOptions?: boolean },
  ): UsageLine {
    if (opts?.detailed !== false) {
      for (const [cls, line] of this.#usageLines) {
        if (this.registrations.get(cls)?.index === n)
          return { usage: withValueNames(line), options: [] }
      }
    }
    const { usage, options } = super.getUsageByIndex(n, opts)
    return {
      usage: withValueNames(usage),
      options: options.map((o) => ({ ...o, definition: withValueNames(o.definition) })),
    }
  }
}

/** An option's names followed by clipanion's placeholders for its values (` #0`, ` #1`). */
const VALUE_PLACEHOLDERS = /(--?[\w-]+(?:,--?[\w-]+)*)((?: #\d+)+)/g

/**
 * Names an option's value after the option in a usage text: clipanion prints `--ttl #0`, fw
 * `--ttl <ttl>` (test/cli/help.test.ts "names option values").
 */
export function withValueNames(usage: string): string {
  return usage.replace(VALUE_PLACEHOLDERS, (_, names: string, values: string) => {
    const name = names.split(',').at(-1)!.replace(/^-+/, '')
    return names + values.replace(/#\d+/g, `<${name}>`)
  })
}
