import type { CommandClass } from 'clipanion'
import type { CommandNeeds } from './builtin-command.js'
import type { FwContext } from './context.js'
import { findApp, NoAppError } from './load-app.js'

/**
 * True when no app is named from `cwd` (no `FW_APP`, no `fw.app` field in a package.json from `cwd`
 * up): `fw`, `fw --help` and an unknown command then answer with the commands that run outside an
 * app instead of the app-loading error (test/cli/outside-app.test.ts). An app that is named but
 * broken (a package.json that is not JSON, a missing module) is not "outside": loading it says why.
 */
export function outsideApp(cwd: string, env: NodeJS.ProcessEnv): boolean {
  try {
    findApp(cwd, env)
    return false
  } catch (error) {
    return error instanceof NoAppError
  }
}

/** fw's commands that do their work with no app around (`new`, `create:plugin`). */
export function commandsOutsideApp(
  builtins: readonly CommandClass<FwContext>[],
): CommandClass<FwContext>[] {
  return builtins.filter((cls) => (cls as CommandNeeds).outsideApp === true)
}

/**
 * What `fw --help` adds outside an app: the other commands exist, run inside an app, and this is
 * how fw finds one.
 */
export const OUTSIDE_APP_HELP = {
  title: 'Inside an app',
  text: `  No fw app was found from this folder, so fw runs only the commands above here.
  fw dev, fw serve, fw route:list, fw key:generate, fw down, fw up, the fw make:*
  generators and the commands of the app's plugins (fw migrate, fw user:create, …)
  run inside an app. fw finds the app from the "fw": { "app": "./app.ts" } field
  of the nearest package.json, from the current folder up, or from FW_APP (the
  path of the app module). Start an app with 'fw new <dir>', then run fw in it.`,
} as const

/** What an unknown command outside an app adds to its error: it may be a command of an app. */
export const OUTSIDE_APP_UNKNOWN =
  "No fw app was found from this folder: an app's commands and its plugins' (fw migrate, fw user:create, …) run inside one (see 'fw --help')."
