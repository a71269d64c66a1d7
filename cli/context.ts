import type { CommandContext, Kernel } from 'fw'

/** An entity one of the app's plugins declared, as the command manifest records it. */
export interface PluginEntity {
  readonly className: string
  readonly plugin: string
}

/**
 * What fw's CLI recorded of the app's last boot (the command manifest, `var/cache/fw-commands.json`),
 * for fw's own commands that can do without booting the app (`fw make:entity`).
 */
export interface BootRecord {
  /**
   * The entities of the app's plugins as the last boot recorded them, when no source of the app
   * changed since (read once per command); else undefined.
   */
  pluginEntities(): readonly PluginEntity[] | undefined
  /** Records what a booted app contributes; `loadedAt` is when it started loading (ms). */
  record(kernel: Kernel, loadedAt: number): void
  /**
   * Keeps a record that was fresh when first read fresh after the command wrote files that
   * contribute no command, serve flag nor entity of a plugin (a generator's new files).
   */
  keepFresh(): void
}

/**
 * What every `fw` command gets as `this.context`: clipanion's streams and environment, plus the
 * application's kernel (created by the app factory; booted unless the command says it needs not be).
 * The public name is `CommandContext`, exported by `fw` for plugin commands; fw's own commands also
 * get the record of the app's last boot, where there is an app.
 */
export type FwContext = CommandContext & { readonly bootRecord?: BootRecord }
