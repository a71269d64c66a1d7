// The base class of a plugin's command, as `builtinCommand` is of fw's own: the path and the usage
// texts stand in one place at the head of the class (test/cli/migrate-commands.test.ts,
// test/plugins/auth/user-commands.test.ts and test/plugins/jobs/cli.test.ts run such commands).
import { Command, type Usage } from 'clipanion'
import type { CommandContext } from 'fw'

/** The base class {@link pluginCommand} returns: a clipanion command of the app's context. */
export type PluginCommandClass = (abstract new () => Command<CommandContext>) &
  Pick<typeof Command, 'paths' | 'usage' | 'schema'>

/**
 * The base class of a plugin's command: its path and its `usage` (category, description, details,
 * examples). The class still gives its options and `execute()`.
 *
 * @example
 * export class GreetCommand extends pluginCommand('greeter:greet', { description: 'Print a greeting' }) {
 *   name = Option.String({ required: true })
 *   async execute() { … }
 * }
 */
export function pluginCommand(path: string, usage: Usage): PluginCommandClass {
  abstract class PluginCommand extends Command<CommandContext> {
    static override paths = [[path]]
    static override usage: Usage = usage
  }
  return PluginCommand
}
