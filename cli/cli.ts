import { createRequire } from 'node:module'
import type { Readable, Writable } from 'node:stream'
import { Builtins, Cli, type Command, type CommandClass } from 'clipanion'
import type { Kernel } from 'fw'
import { CreatePluginCommand } from './commands/create-plugin.js'
import { DevCommand } from './commands/dev.js'
import { DownCommand } from './commands/down.js'
import { KeyGenerateCommand } from './commands/key-generate.js'
import { MAKE_COMMANDS } from './commands/make-commands.js'
import { NewCommand } from './commands/new.js'
import { RouteListCommand } from './commands/route-list.js'
import { ServeCommand, serveFlagsOf } from './commands/serve.js'
import { UpCommand } from './commands/up.js'
import { bootRecord, pathKeys, recordBoot, registerPluginCommands } from './boot-record.js'
import {
  ListingCli,
  manifestPlace,
  readManifest,
  type CommandManifest,
  type ManifestPlace,
} from './command-manifest.js'
import type { FwContext } from './context.js'
import { describeError } from './describe-error.js'
import { loadApp } from './load-app.js'
import { commandsOutsideApp, OUTSIDE_APP_HELP, outsideApp } from './outside-app.js'

/** The commands every app has, before the ones its plugins contribute. */
export const BUILTIN_COMMANDS: readonly CommandClass<FwContext>[] = [
  RouteListCommand,
  ServeCommand,
  DevCommand,
  KeyGenerateCommand,
  DownCommand,
  UpCommand,
  CreatePluginCommand,
  NewCommand,
  ...MAKE_COMMANDS,
]

/** Options of {@link runCli}: where the CLI runs and what it writes to. */
export interface RunCliOptions {
  cwd?: string
  env?: NodeJS.ProcessEnv
  stdin?: Readable
  stdout?: Writable
  stderr?: Writable
}

/** fw's own version, from its package.json (a package self-reference, valid from src and dist). */
function version(): string | undefined {
  try {
    return (createRequire(import.meta.url)('fw/package.json') as { version?: string }).version
  } catch {
    return undefined
  }
}

/** Colours only on a terminal, unless `NO_COLOR` or `FORCE_COLOR` says otherwise. */
function colors(stdout: Writable, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0'
  return (stdout as Writable & { isTTY?: boolean }).isTTY === true
}

/**
 * What the command named by `argv` needs: the app (else a bare kernel), booted or not. `--version`
 * needs nothing; `--help` and a command fw does not have need the app's command list only (the
 * manifest when fresh); anything else may be a command a plugin contributes: the booted app.
 */
function needsOf(argv: readonly string[]): { app: boolean; boot: boolean; listing: boolean } {
  const selected = BUILTIN_COMMANDS.find((cls) =>
    cls.paths?.some((path) => path.length > 0 && path.every((p, i) => argv[i] === p)),
  ) as { bootsApp?: boolean; needsApp?: boolean } | undefined
  if (selected !== undefined) {
    return { app: selected.needsApp !== false, boot: selected.bootsApp !== false, listing: false }
  }
  const first = argv[0] ?? ''
  if (first === '-v' || first === '--version') return { app: false, boot: false, listing: true }
  const listing = first === '-h' || first === '--help' || !first.startsWith('-')
  return { app: true, boot: true, listing }
}

/**
 * The fresh manifest of the app's commands when `argv` only lists commands (`--help`, or a word
 * that no contributed command starts with: an unknown command, answered with suggestions), and
 * the manifest's place (undefined when there is no app to find: loading it reports why).
 */
function listingFrom(
  argv: readonly string[],
  listing: boolean,
  cwd: string,
  env: NodeJS.ProcessEnv,
): { place?: ManifestPlace; manifest?: CommandManifest } {
  let place: ManifestPlace
  try {
    place = manifestPlace(cwd, env, version())
  } catch {
    return {}
  }
  if (!listing) return { place }
  const manifest = readManifest(place)
  const first = argv[0] ?? ''
  const names = (paths: string[][]): boolean => paths.some((path) => path[0] === first)
  if (manifest === undefined || manifest.commands.some((c) => names(c.paths))) return { place }
  return { place, manifest }
}

/**
 * The context's kernel when only commands are listed: no command of the app runs then (help,
 * version and usage errors read no kernel), and one that did would say so rather than act on a
 * kernel that is not the app's.
 */
function notLoaded(): Kernel {
  return new Proxy({} as Kernel, {
    get(_target, key) {
      throw new Error(`fw listed the commands without loading the app: no kernel.${String(key)}`)
    },
  })
}

/** Where the commands `fw` offers come from: fw's own, then the manifest's or the app's. */
interface CommandSources {
  /** fw's own commands to offer: all of them, or outside an app those that run there. */
  readonly builtins: readonly CommandClass<FwContext>[]
  readonly manifest: ReturnType<typeof listingFrom>['manifest']
  /** True when no command of the app's runs (listing): no kernel was made. */
  readonly lists: boolean
  readonly kernel: Kernel
  /** Where the manifest is written after a boot, if it is. */
  readonly writesManifest: ReturnType<typeof listingFrom>['place']
  readonly stamp: number
  readonly stderr: Writable
}

/** What {@link registerCommands} registered. */
interface Registered {
  /** Every path, as `a b` strings. */
  readonly taken: Set<string>
  /** fw's own command classes as registered (`fw serve` with the app's flags). */
  readonly builtins: CommandClass<FwContext>[]
}

/** Registers fw's commands and the app's (or the manifest's stand-ins). */
function registerCommands(cli: ListingCli, sources: CommandSources): Registered {
  const { manifest, lists, kernel, writesManifest, stamp, stderr } = sources
  const taken = new Set<string>()
  const builtins: CommandClass<FwContext>[] = []
  const serveFlags = manifest?.serveFlags ?? (lists ? [] : serveFlagsOf(kernel))
  for (const cls of [...sources.builtins, Builtins.HelpCommand, Builtins.VersionCommand]) {
    // `fw serve` with the flags the app's plugins declared (`kernel.serveOptions`), from the
    // manifest when listing from it: `--help` reads the same either way.
    const registered = cls === ServeCommand ? ServeCommand.withRequirements(serveFlags) : cls
    cli.register(registered)
    builtins.push(registered)
    for (const key of pathKeys(cls)) taken.add(key)
  }
  if (manifest !== undefined) {
    for (const entry of manifest.commands) {
      cli.registerStandIn(entry)
      for (const path of entry.paths) taken.add(path.join(' '))
    }
  } else if (!lists) {
    const contributed = registerPluginCommands(cli, kernel, taken, stderr)
    // Rewritten on every boot rather than checked first: checking walks the app's sources
    // (~20 ms for fw's own repository), writing a small file costs ~1 ms.
    if (writesManifest !== undefined)
      recordBoot(writesManifest, stamp, kernel, { cli, contributed })
  }
  return { taken, builtins }
}

/**
 * The command `args` selects. clipanion compiles a parser of every registered command on each
 * `process` (~20–30 ms for fw's own): when `args` starts with the path of one of fw's commands and
 * no other command's path starts with the same word, a parser of that command alone selects it.
 * What it refuses (an unknown option, a missing argument) goes to the whole CLI, so that errors and
 * suggestions read as they always do (test/cli/help.test.ts, test/cli/route-list.test.ts).
 */
function selectCommand(
  cli: ListingCli,
  { taken, builtins }: Registered,
  args: readonly string[],
  context: FwContext,
): Command<FwContext> {
  const chosen = builtins.filter((cls) =>
    cls.paths?.some((path) => path.length > 0 && path.every((p, i) => args[i] === p)),
  )
  const sharing = [...taken].filter((key) => key.split(' ')[0] === args[0])
  if (chosen.length === 1 && sharing.length === (chosen[0]!.paths ?? []).length) {
    const alone = new Cli<FwContext>({ binaryName: 'fw' })
    alone.register(chosen[0]!)
    try {
      return alone.process([...args], context)
    } catch {
      // Refused: the whole CLI says why.
    }
  }
  return cli.process([...args], context)
}

/** What {@link runCommand} needs: the CLI's streams and the commands it offers. */
interface RunPlan extends CommandSources {
  readonly args: readonly string[]
  readonly cwd: string
  readonly env: NodeJS.ProcessEnv
  readonly stdout: Writable
  readonly stdin: Readable
  /** No app was found from the cwd: only the commands that run outside one are offered. */
  readonly outside: boolean
  /** Collects the registered paths, for the suggestion of an unknown command. */
  readonly commands: string[]
  readonly fail: (error: unknown) => number
}

/** Registers the commands, selects the one `args` names and runs it: its exit code. */
async function runCommand(plan: RunPlan): Promise<number> {
  const { args, env, stdout, stderr, outside, commands, fail } = plan
  const cli = new ListingCli({
    binaryLabel: 'fw',
    binaryName: 'fw',
    binaryVersion: version(),
    enableColors: colors(stdout, env),
  })
  if (outside) cli.generalNote = OUTSIDE_APP_HELP
  const registered = registerCommands(cli, plan)
  // Outside an app, a typo of a command that needs one is still suggested (`route:lsit`).
  commands.push(...(outside ? BUILTIN_COMMANDS.flatMap(pathKeys) : registered.taken))

  const { stdin, kernel, cwd } = plan
  const place = (): ManifestPlace => plan.writesManifest ?? manifestPlace(cwd, env, version())
  const record = bootRecord(place, registered.builtins.flatMap(pathKeys), stderr)
  const context: FwContext = {
    ...Cli.defaultContext,
    ...{ env, stdout, stderr, stdin, kernel },
    bootRecord: record,
  }
  let command: Command<FwContext>
  try {
    command = selectCommand(cli, registered, args, context)
  } catch (error) {
    return fail(error)
  }
  // clipanion prints a failed command's error (and stack) itself; report it our way instead.
  let failure: { error: unknown } | undefined
  command.catch = async (error: unknown) => {
    failure = { error }
  }
  const code = await cli.run(command, context)
  return failure === undefined ? code : fail(failure.error)
}

/**
 * Runs `fw` with `argv` (without `node` and the script): loads the app, registers the built-in
 * commands and those the app's plugins contribute, runs the selected one, closes the app, and
 * returns the exit code: 0 on success, 1 on any failure, reported on one line (plus the stack of
 * an unexpected error when `FW_DEBUG` is set). Outside an app, `fw`, `fw --help` and an unknown
 * command answer with the commands that run there (test/cli/outside-app.test.ts).
 *
 * @example
 * process.exitCode = await runCli(process.argv.slice(2))
 */
export async function runCli(
  argv: readonly string[],
  options: RunCliOptions = {},
): Promise<number> {
  const env = options.env ?? process.env
  const stdout = options.stdout ?? process.stdout
  const stderr = options.stderr ?? process.stderr
  const args = argv.length === 0 ? ['--help'] : [...argv]
  const commands: string[] = []
  const cwd = options.cwd ?? process.cwd()
  const needs = needsOf(args)
  // Listing with no app to list from: fw's commands that run outside an app, and no app loaded.
  const outside = needs.app && needs.listing && outsideApp(cwd, env)
  const fail = (error: unknown): number => {
    const debug = env.FW_DEBUG
    stderr.write(describeError(error, { argv: args, commands, debug, outsideApp: outside }))
    return 1
  }

  // `fw --help` lists the plugins' commands from the manifest the last boot wrote, when no source
  // of the app changed since: no app is loaded. On a miss the app boots and writes it anew.
  const { place, manifest } =
    needs.app && !outside ? listingFrom(args, needs.listing, cwd, env) : {}
  const stamp = Date.now()
  // Listing (`--help`, `--version`, an unknown command) runs no command of the app's: no kernel
  // is made, so fw's kernel is not even loaded.
  const lists = outside || manifest !== undefined || (!needs.app && needs.listing)
  let kernel: Kernel
  try {
    kernel = lists
      ? notLoaded()
      : needs.app
        ? await loadApp({ cwd: options.cwd, env, boot: needs.boot })
        : (await import('fw')).createKernel({ root: cwd, env })
  } catch (error) {
    return fail(error)
  }
  try {
    const builtins = outside ? commandsOutsideApp(BUILTIN_COMMANDS) : BUILTIN_COMMANDS
    const writesManifest = needs.app && needs.boot ? place : undefined
    const stdin = options.stdin ?? process.stdin
    const sources = { builtins, manifest, lists, kernel, writesManifest, stamp, stderr }
    return await runCommand({ ...sources, args, cwd, env, stdout, stdin, outside, commands, fail })
  } finally {
    if (!lists)
      await kernel
        .close()
        .catch(
          (error: unknown) =>
            void stderr.write(describeError(error, { argv: args, debug: env.FW_DEBUG })),
        )
  }
}
