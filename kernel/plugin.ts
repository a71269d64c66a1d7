import { performance } from 'node:perf_hooks'
import type { ConfigResolver, ConfigSlice } from './config.js'
import { sliceProblem } from './config-rules.js'
import { kernelErrors } from './error-codes.js'
import type { FwError } from './errors.js'
import type { Kernel } from './kernel-type.js'
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
 * The name of a plugin some module declared in {@link PluginApis} (a plugin without an API declares
 * `void`). `dependsOn`, `optionalDependsOn`, `kernel.hasPlugin` and `kernel.plugin` take these, so a
 * typo such as `'helth'` fails to compile wherever the health plugin's types are imported.
 */
export type PluginName = keyof PluginApis & string

/**
 * A plugin: a name, the plugins it needs first, the config keys it owns, and a `setup` that taps
 * hooks and may return an API object other plugins reach with `kernel.plugin(name)`.
 */
export interface Plugin<Options = void, Api = void> {
  readonly name: string
  /** Plugins that must be registered; they are set up first. Checked at compile time and at boot. */
  readonly dependsOn?: readonly PluginName[]
  /** Plugins used when they are registered (`kernel.hasPlugin(name)`); set up first when they are. */
  readonly optionalDependsOn?: readonly PluginName[]
  /** The config keys this plugin owns: defaults, a rule per key, environment variables. */
  readonly config?: ConfigSlice
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
    throw kernelErrors.error('FW_ERR_PLUGIN_INVALID', {})
  }
  const problem = plugin.config === undefined ? undefined : sliceProblem(plugin.config)
  if (problem !== undefined)
    throw kernelErrors.error('FW_ERR_PLUGIN_INVALID', { plugin: plugin.name, problem })
  return Object.freeze({
    ...plugin,
    dependsOn: Object.freeze([...(plugin.dependsOn ?? [])]),
    optionalDependsOn: Object.freeze([...(plugin.optionalDependsOn ?? [])]),
  })
}

/** The plugins `plugin` declares it uses: required and optional. */
function declaredUses(plugin: AnyPlugin): readonly string[] {
  return [...(plugin.dependsOn ?? []), ...(plugin.optionalDependsOn ?? [])]
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
      throw kernelErrors.error('FW_ERR_PLUGIN_DUPLICATE', { name: r.plugin.name })
    }
    byName.set(r.plugin.name, r)
  }
  for (const r of registrations) {
    for (const dep of r.plugin.dependsOn ?? []) {
      if (!byName.has(dep)) {
        throw kernelErrors.error('FW_ERR_PLUGIN_MISSING_DEPENDENCY', {
          plugin: r.plugin.name,
          dependency: dep,
        })
      }
    }
  }
  // Kahn's algorithm, always taking the earliest-registered plugin whose dependencies (optional
  // ones that are registered included) are set up: dependencies first, registration order otherwise.
  const needs = (r: Registration): string[] => declaredUses(r.plugin).filter((d) => byName.has(d))
  const ordered: Registration[] = []
  const placed = new Set<string>()
  const pending = [...registrations]
  while (pending.length > 0) {
    const i = pending.findIndex((r) => needs(r).every((d) => placed.has(d)))
    if (i === -1) throw cycleError(pending, byName, needs)
    const [next] = pending.splice(i, 1)
    placed.add(next!.plugin.name)
    ordered.push(next!)
  }
  return ordered
}

/** Finds one cycle among plugins that could not be placed and names it. */
function cycleError(
  pending: readonly Registration[],
  byName: Map<string, Registration>,
  needs: (r: Registration) => string[],
): FwError {
  const path: string[] = []
  let current: Registration | undefined = pending[0]
  while (current && !path.includes(current.plugin.name)) {
    path.push(current.plugin.name)
    const dep: string | undefined = needs(current).find((d) =>
      pending.some((p) => p.plugin.name === d),
    )
    current = dep === undefined ? undefined : byName.get(dep)
  }
  const cycle = current
    ? [...path.slice(path.indexOf(current.plugin.name)), current.plugin.name]
    : path
  return kernelErrors.error('FW_ERR_PLUGIN_CYCLE', { cycle })
}

/** A kernel's plugins: registered, then set up in dependency order, then their APIs. */
export class PluginSet {
  /** The CLI commands plugins contributed (`kernel.command()`), in registration order. */
  readonly commands: CommandClass[] = []
  readonly #registrations: Registration[] = []
  readonly #apis = new Map<string, unknown>()
  /** The plugin whose `setup` is running: what it asks for must be declared. */
  #settingUp: AnyPlugin | undefined
  readonly #configs: ConfigResolver

  /** Plugins' config slices resolve into `configs` as they are added. */
  constructor(configs: ConfigResolver) {
    this.#configs = configs
  }

  /** Adds a registration; the plugin's config keys resolve now, so a wrong value fails here. */
  add(plugin: AnyPlugin, options: unknown): void {
    // A second registration of one plugin is reported as such at boot, not as a taken config key.
    const again = this.#registrations.some((r) => r.plugin.name === plugin.name)
    if (plugin.config && !again) this.#configs.add(plugin.name, plugin.config)
    this.#registrations.push({ plugin, options })
  }

  has(name: string): boolean {
    this.#assertDeclared(name, 'hasPlugin')
    return this.#registrations.some((r) => r.plugin.name === name)
  }

  /** Sets every plugin up, dependencies first, timing each into `timeline`. */
  async setUp(kernel: Kernel, timeline: BootTiming[]): Promise<void> {
    for (const { plugin, options } of orderPlugins(this.#registrations)) {
      const t = performance.now()
      this.#settingUp = plugin
      try {
        this.#apis.set(plugin.name, await plugin.setup(kernel, options))
      } finally {
        this.#settingUp = undefined
      }
      timeline.push({ name: plugin.name, duration: performance.now() - t })
    }
  }

  /**
   * A plugin's `setup` may only ask for the plugins it declares (`dependsOn`, `optionalDependsOn`):
   * that is what orders setups, so an undeclared one works or not by registration order.
   */
  #assertDeclared(name: string, method: string): void {
    const asking = this.#settingUp
    if (asking === undefined || asking.name === name || declaredUses(asking).includes(name)) return
    throw kernelErrors.error('FW_ERR_PLUGIN_UNDECLARED', { plugin: asking.name, method, name })
  }

  /** The API a plugin's `setup` returned; fails saying why when there is none yet. */
  api(name: string): unknown {
    this.#assertDeclared(name, 'plugin')
    if (!this.#apis.has(name)) {
      throw kernelErrors.error('FW_ERR_PLUGIN_UNKNOWN', { name, registered: this.has(name) })
    }
    return this.#apis.get(name)
  }
}
