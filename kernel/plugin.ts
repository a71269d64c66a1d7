import { performance } from 'node:perf_hooks'
import { FwError } from './errors.js'
import type { Kernel } from './kernel.js'
import type { BootTiming, CommandClass } from './types.js'

/**
 * The APIs plugins return from `setup`, by plugin name. A plugin declares its entry by declaration
 * merging so `kernel.plugin('health')` is typed:
 *
 * @example
 * declare module 'fw' {
 *   interface PluginApis { health: HealthApi }
 * }
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface PluginApis {}

/**
 * A plugin: a name, the plugins it needs first, and a `setup` that taps hooks and may return an API
 * object other plugins reach with `kernel.plugin(name)`.
 */
export interface Plugin<Options = void, Api = void> {
  readonly name: string
  readonly dependsOn?: readonly string[]
  setup(kernel: Kernel, options: Options): Api | Promise<Api>
}

/** Any plugin, whatever its options and API (what `kernel.register` accepts). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- variance escape hatch: a plugin's options are checked where it is registered
export type AnyPlugin = Plugin<any, unknown>

/** The options type of a plugin. */
export type PluginOptions<P> = P extends Plugin<infer O, unknown> ? O : never

/** The API type a plugin's `setup` returns. */
export type PluginApi<P> = P extends Plugin<never, infer A> ? Awaited<A> : never

/**
 * Declares a plugin. Options and API types are inferred from `setup`, or given explicitly.
 *
 * @example
 * export default definePlugin({
 *   name: 'hello',
 *   setup(kernel, options: { greeting?: string }) {
 *     kernel.hooks.boot.tapPromise('hello', async () => {
 *       kernel.router.get('hello', () => ({ hello: options.greeting ?? 'world' }))
 *     })
 *     return { greet: (who: string) => `${options.greeting ?? 'hello'} ${who}` }
 *   },
 * })
 */
export function definePlugin<Options = void, Api = void>(
  plugin: Plugin<Options, Api>,
): Plugin<Options, Api> {
  if (!plugin.name || typeof plugin.name !== 'string' || typeof plugin.setup !== 'function') {
    throw new FwError(
      'FW_ERR_PLUGIN_INVALID',
      'definePlugin() needs a non-empty `name` and a `setup(kernel, options)` function.',
    )
  }
  return Object.freeze({ ...plugin, dependsOn: Object.freeze([...(plugin.dependsOn ?? [])]) })
}

/** A registration: the plugin and the options it was registered with. */
export interface Registration {
  readonly plugin: AnyPlugin
  readonly options: unknown
}

/**
 * Orders registrations so that every plugin comes after what it depends on, keeping registration
 * order otherwise. Fails with a message that says what to do on a duplicate name, a missing
 * dependency or a cycle.
 */
export function orderPlugins(registrations: readonly Registration[]): Registration[] {
  const byName = new Map<string, Registration>()
  for (const r of registrations) {
    if (byName.has(r.plugin.name)) {
      throw new FwError(
        'FW_ERR_PLUGIN_DUPLICATE',
        `Plugin '${r.plugin.name}' is registered twice. Register each plugin once (pass all its options in one register() call).`,
      )
    }
    byName.set(r.plugin.name, r)
  }
  for (const r of registrations) {
    for (const dep of r.plugin.dependsOn ?? []) {
      if (!byName.has(dep)) {
        throw new FwError(
          'FW_ERR_PLUGIN_MISSING_DEPENDENCY',
          `Plugin '${r.plugin.name}' depends on '${dep}', which is not registered. Register '${dep}' as well.`,
        )
      }
    }
  }
  // Kahn's algorithm, always taking the earliest-registered plugin whose dependencies are set up:
  // dependencies first, registration order otherwise.
  const ordered: Registration[] = []
  const placed = new Set<string>()
  const pending = [...registrations]
  while (pending.length > 0) {
    const i = pending.findIndex((r) => (r.plugin.dependsOn ?? []).every((d) => placed.has(d)))
    if (i === -1) throw cycleError(pending, byName)
    const [next] = pending.splice(i, 1)
    placed.add(next!.plugin.name)
    ordered.push(next!)
  }
  return ordered
}

/** Finds one cycle among plugins that could not be placed and names it. */
function cycleError(pending: readonly Registration[], byName: Map<string, Registration>): FwError {
  const path: string[] = []
  let current: Registration | undefined = pending[0]
  while (current && !path.includes(current.plugin.name)) {
    path.push(current.plugin.name)
    const dep: string | undefined = (current.plugin.dependsOn ?? []).find((d) =>
      pending.some((p) => p.plugin.name === d),
    )
    current = dep === undefined ? undefined : byName.get(dep)
  }
  const cycle = current
    ? [...path.slice(path.indexOf(current.plugin.name)), current.plugin.name]
    : path
  return new FwError(
    'FW_ERR_PLUGIN_CYCLE',
    `Plugins depend on each other in a cycle: ${cycle.join(' → ')}. Remove one of these dependsOn entries.`,
  )
}

/** A kernel's plugins: registered, then set up in dependency order, then their APIs. */
export class PluginSet {
  /** The CLI commands plugins contributed (`kernel.command()`), in registration order. */
  readonly commands: CommandClass[] = []
  readonly #registrations: Registration[] = []
  readonly #apis = new Map<string, unknown>()

  add(plugin: AnyPlugin, options: unknown): void {
    this.#registrations.push({ plugin, options })
  }

  has(name: string): boolean {
    return this.#registrations.some((r) => r.plugin.name === name)
  }

  /** Sets every plugin up, dependencies first, timing each into `timeline`. */
  async setUp(kernel: Kernel, timeline: BootTiming[]): Promise<void> {
    for (const { plugin, options } of orderPlugins(this.#registrations)) {
      const t = performance.now()
      this.#apis.set(plugin.name, await plugin.setup(kernel, options))
      timeline.push({ name: plugin.name, duration: performance.now() - t })
    }
  }

  /** The API a plugin's `setup` returned; fails saying why when there is none yet. */
  api(name: string): unknown {
    if (!this.#apis.has(name)) {
      throw new FwError(
        'FW_ERR_PLUGIN_UNKNOWN',
        this.has(name)
          ? `Plugin '${name}' is registered but not set up yet. Add '${name}' to your plugin's dependsOn, or ask for it inside a boot tap.`
          : `Plugin '${name}' is not registered. Register it with kernel.register(...) before boot.`,
      )
    }
    return this.#apis.get(name)
  }
}
