import { Command } from 'clipanion'
import type { FwContext } from './context.js'

/** What a built-in command needs of the app: the CLI reads it before it loads anything. */
export interface CommandNeeds {
  /** False: the command runs anywhere and no app is loaded (`create:plugin`). Default true. */
  readonly needsApp?: boolean
  /**
   * False: the app is loaded, not booted: the command needs its root only (`key:generate`), or
   * must work when the app cannot boot (`down`, `up`). Default true.
   */
  readonly bootsApp?: boolean
  /**
   * True: the command does its work where there is no app at all (`new`, `create:plugin`), so
   * `fw --help` run outside an app lists it (test/cli/outside-app.test.ts). Default false.
   */
  readonly outsideApp?: boolean
}

/** The base class {@link builtinCommand} returns: a clipanion command class of fw's context. */
export type BuiltinCommandClass = (abstract new () => Command<FwContext>) &
  Pick<typeof Command, 'paths' | 'usage' | 'schema'> &
  Required<CommandNeeds>

/**
 * The base class of a built-in command: its path and what it needs of the app, in one line. The
 * class still gives its `usage` and `execute()`.
 *
 * @example
 * export class UpCommand extends builtinCommand('up', { bootsApp: false }) {
 *   static override usage = Command.Usage({ description: 'Bring the app out of maintenance mode' })
 *   async execute() { … }
 * }
 */
export function builtinCommand(path: string, needs: CommandNeeds = {}): BuiltinCommandClass {
  abstract class BuiltinCommand extends Command<FwContext> {
    static override paths = [[path]]
    static readonly needsApp: boolean = needs.needsApp ?? true
    static readonly bootsApp: boolean = needs.bootsApp ?? true
    static readonly outsideApp: boolean = needs.outsideApp ?? false
  }
  return BuiltinCommand
}
