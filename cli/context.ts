import type { CommandContext } from 'fw'

/**
 * What every `fw` command gets as `this.context`: clipanion's streams and environment, plus the
 * application's kernel (created by the app factory; booted unless the command says it needs not be).
 * The public name is `CommandContext`, exported by `fw` for plugin commands.
 */
export type FwContext = CommandContext
