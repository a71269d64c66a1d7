// `fw/cli`: what a plugin needs to contribute a command to `fw`. Import `Command` and `Option`
// from here rather than from 'clipanion': the CLI registers only commands built on its own copy of
// clipanion (options declared with another copy's `Option` are not recognised), and a plugin
// package that installs clipanion itself gets a copy of its own.
export { Command, Option, UsageError } from 'clipanion'
export type { Usage } from 'clipanion'
export type { CommandContext } from 'fw'
// The base class of a command: its path and usage in one place.
export { pluginCommand } from './plugin-command.js'
export type { PluginCommandClass } from './plugin-command.js'
// The table printer of fw's own commands (`fw route:list`), for plugins' commands.
export { formatTable } from './table.js'
// Usage errors from the user's mistakes, whole-number options, and `--json` or a table.
export { wholeNumberOption, withUsageErrors, writeItems } from './user-errors.js'
