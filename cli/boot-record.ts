import type { Writable } from 'node:stream'
import { Command, type Cli, type CommandClass } from 'clipanion'
import type { Kernel } from 'fw'
import { serveFlagsOf } from './commands/serve.js'
import {
  describeCommands,
  ListingCli,
  readManifest,
  writeManifest,
  type CommandManifest,
  type ManifestPlace,
} from './command-manifest.js'
import type { BootRecord, FwContext, PluginEntity } from './context.js'

/** The paths already taken, as `a b` strings, for spotting a plugin command that collides. */
export function pathKeys(cls: CommandClass<FwContext>): string[] {
  return (cls.paths ?? []).map((p) => p.join(' '))
}

/**
 * Why a contributed command is not a Command of fw's clipanion: most often it extends another copy
 * of clipanion (the plugin package resolved its own), whose options fw's copy cannot read.
 */
function whyRefused(cls: unknown): string {
  let proto: unknown = typeof cls === 'function' ? Object.getPrototypeOf(cls) : undefined
  while (typeof proto === 'function') {
    const base = proto as { name?: string; prototype?: { validateAndExecute?: unknown } }
    if (base.name === 'Command' && typeof base.prototype?.validateAndExecute === 'function') {
      return "it extends another copy of clipanion than fw's (its package resolves its own). Import Command and Option from 'fw/cli' instead of 'clipanion'."
    }
    proto = Object.getPrototypeOf(proto)
  }
  return "a plugin command must be a clipanion Command subclass: extend Command from 'fw/cli'."
}

/**
 * Registers the commands the app's plugins contribute on `cli`: each must be a clipanion Command
 * of fw's copy, on a path not `taken` (a refused one is said on `stderr` and skipped). Returns
 * those registered; their paths join `taken`.
 */
export function registerPluginCommands(
  cli: Cli<FwContext>,
  kernel: Kernel,
  taken: Set<string>,
  stderr: Writable,
): CommandClass<FwContext>[] {
  const registered: CommandClass<FwContext>[] = []
  for (const contributed of kernel.commands()) {
    const cls = contributed as unknown as CommandClass<FwContext>
    const label = (contributed as { name?: string }).name || 'anonymous command'
    if (typeof cls !== 'function' || !(cls.prototype instanceof Command)) {
      stderr.write(`fw: skipping ${label}: ${whyRefused(cls)}\n`)
      continue
    }
    const clash = pathKeys(cls).find((key) => taken.has(key))
    if (clash !== undefined) {
      stderr.write(
        `fw: skipping ${label}: 'fw ${clash}' is already a command. Give it another path.\n`,
      )
      continue
    }
    for (const key of pathKeys(cls)) taken.add(key)
    cli.register(cls)
    registered.push(cls)
  }
  return registered
}

/** The entities the app's plugins declared (the app's own are not listed). */
export function pluginEntitiesOf(kernel: Kernel): PluginEntity[] {
  if (!kernel.hasPlugin('database')) return []
  return kernel
    .plugin('database')
    .entities()
    .flatMap(({ className, plugin }) => (plugin === undefined ? [] : [{ className, plugin }]))
}

/**
 * Writes the manifest of a booted app: the commands its plugins contributed (`contributed`, as
 * registered on `cli`), its serve flags and its plugins' entities; `stamp` is when it started
 * loading. Returns what it wrote.
 */
export function recordBoot(
  place: ManifestPlace,
  stamp: number,
  kernel: Kernel,
  registered: { readonly cli: Cli<FwContext>; readonly contributed: CommandClass<FwContext>[] },
): CommandManifest {
  return writeManifest(place, {
    stamp,
    commands: describeCommands(registered.cli, registered.contributed),
    serveFlags: serveFlagsOf(kernel),
    entities: pluginEntitiesOf(kernel),
  })
}

/**
 * The record of the app's last boot for fw's own commands: its place is asked of `find` on first
 * use (none where `find` throws: there is no app), and it is read at most once. `builtins` are
 * fw's command paths: a plugin command on one is skipped, as when the CLI registers it.
 */
export function bootRecord(
  find: () => ManifestPlace,
  builtins: readonly string[],
  stderr: Writable,
): BootRecord {
  let place: ManifestPlace | undefined | null = null
  let read: CommandManifest | undefined | null = null
  const placed = (): ManifestPlace | undefined => {
    if (place === null) {
      try {
        place = find()
      } catch {
        place = undefined
      }
    }
    return place
  }
  const fresh = (): CommandManifest | undefined => {
    if (read === null) {
      const at = placed()
      read = at === undefined ? undefined : readManifest(at)
    }
    return read
  }
  return {
    pluginEntities: () => fresh()?.entities,
    record(kernel, loadedAt) {
      const at = placed()
      if (at === undefined) return
      const cli = new ListingCli({ binaryName: 'fw', enableColors: false })
      const contributed = registerPluginCommands(cli, kernel, new Set(builtins), stderr)
      read = recordBoot(at, loadedAt, kernel, { cli, contributed })
    },
    keepFresh() {
      const manifest = fresh()
      const at = placed()
      if (manifest !== undefined && at !== undefined)
        writeManifest(at, { ...manifest, stamp: Date.now() })
    },
  }
}
