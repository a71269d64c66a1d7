// The configuration: its public types, the kernel's own slice, and the resolver that builds it.
import type {
  ConfigRule,
  ConfigRuleObject,
  ConfigSlice,
  FwConfig,
  UserConfig,
} from './config-types.js'
import { configErrors } from './error-codes.js'
import { ruleOf, validate } from './config-rules.js'
import {
  deepMerge,
  isPlainObject,
  parseEnv,
  parseFwConfig,
  pick,
  setPath,
} from './config-sources.js'

export type {
  ConfigKind,
  ConfigKindValues,
  ConfigPath,
  ConfigRule,
  ConfigRuleObject,
  ConfigSlice,
  DeepPartial,
  FwConfig,
  UserConfig,
} from './config-types.js'

/**
 * Declares an application's configuration with its keys type-checked.
 *
 * @example
 * export default defineConfig({ app: { name: 'shop' }, features: ['debug'] })
 */
export function defineConfig(config: UserConfig): UserConfig {
  return config
}

/** The kernel's own slice. */
function kernelSlice(root: string): ConfigSlice {
  return {
    defaults: {
      app: { name: 'fw', key: undefined, root, env: undefined },
      debug: false,
      development: false,
      features: [],
      http: {
        port: 3000,
        host: '127.0.0.1',
        body_limit: 1024 * 1024,
        trust_proxy: false,
        drain_timeout: 30,
        shutdown_delay: 0,
        compression: { enabled: true, threshold: 1024 },
        // No sniffing anywhere; pages cannot be framed and send only their origin to other sites.
        security_headers: {
          content_type_options: 'nosniff',
          frame_options: 'DENY',
          referrer_policy: 'strict-origin-when-cross-origin',
          content_security_policy: '',
          hsts: { max_age: 0, include_subdomains: false, preload: false },
        },
      },
    },
    schema: {
      'app.name': 'string',
      'app.key': 'string?',
      'app.root': 'string',
      'app.env': 'string?',
      debug: 'boolean',
      development: 'boolean',
      features: 'string[]',
      'http.port': 'port',
      'http.host': 'string',
      'http.body_limit': 'integer',
      'http.trust_proxy': 'boolean',
      'http.drain_timeout': 'seconds',
      'http.shutdown_delay': 'seconds',
      'http.compression.enabled': 'boolean',
      'http.compression.threshold': { kind: 'integer', min: 0 },
      'http.security_headers.content_type_options': 'string',
      'http.security_headers.frame_options': 'string',
      'http.security_headers.referrer_policy': 'string',
      'http.security_headers.content_security_policy': 'string',
      'http.security_headers.hsts.max_age': 'seconds',
      'http.security_headers.hsts.include_subdomains': 'boolean',
      'http.security_headers.hsts.preload': 'boolean',
    },
    env: {
      'http.port': 'PORT',
      'http.host': 'HOST',
      'app.key': 'FW_APP_KEY',
      'app.env': 'NODE_ENV',
    },
  }
}

/**
 * Resolves the configuration slice by slice: the kernel's own keys when created, each plugin's when
 * it is registered. A slice's values are its defaults, then the application's config, then its
 * environment variables (`PORT`, `HOST`, `FW_APP_KEY` for the kernel), then `FW_CONFIG`
 * deep-merged last; each top-level key has one owner. Keys no one declares are kept as given.
 */
export class ConfigResolver {
  /** The resolved configuration, completed in place as slices are added. */
  readonly config: FwConfig
  readonly #user: Record<string, unknown>
  readonly #env: NodeJS.ProcessEnv
  readonly #override: Record<string, unknown>
  readonly #owners = new Map<string, string>()

  constructor(user: UserConfig, env: NodeJS.ProcessEnv = process.env, root: string) {
    this.#user = isPlainObject(user) ? user : {}
    this.#env = env
    this.#override = parseFwConfig(this.#env)
    // Keys no one declares are kept as given, unchecked (typed only if the app declares them).
    this.config = deepMerge(this.#user, this.#override) as unknown as FwConfig
    this.add('the kernel', kernelSlice(root))
  }

  /** Resolves and checks `slice`, owned by `owner` (a plugin's name), into {@link config}. */
  add(owner: string, slice: ConfigSlice): void {
    const keys = Object.keys(slice.defaults)
    for (const key of keys) {
      const taken = this.#owners.get(key)
      if (taken !== undefined) {
        throw configErrors.error('FW_ERR_CONFIG_KEY_TAKEN', { key, taken, owner })
      }
    }
    // A copy: the environment's values are set in place, never into the plugin's defaults.
    const defaults = structuredClone(slice.defaults) as Record<string, unknown>
    let values = deepMerge(defaults, pick(this.#user, keys))
    for (const [path, name] of Object.entries(slice.env ?? {}) as [string, string][]) {
      const raw = this.#env[name]
      if (raw === undefined || raw === '') continue
      const rule = ruleOf((slice.schema as Record<string, ConfigRule | ConfigRuleObject>)[path]!)
      setPath(values, path, parseEnv(name, raw, rule.kind))
    }
    values = deepMerge(values, pick(this.#override, keys))
    validate(values, slice.schema)
    for (const key of keys)
      this.#owners.set(key, owner === 'the kernel' ? owner : `plugin '${owner}'`)
    Object.assign(this.config, values)
  }
}

/**
 * Resolves the kernel's configuration: defaults, then the application's config, then the
 * environment (`PORT`, `HOST`, `FW_APP_KEY`, and `FW_CONFIG` deep-merged last). Fails naming the
 * key and what was expected when a value has the wrong type. Plugins' keys resolve when they are
 * registered (`kernel.register`).
 */
export function resolveConfig(
  user: UserConfig,
  options: { root: string; env?: NodeJS.ProcessEnv },
): FwConfig {
  return new ConfigResolver(user, options.env, options.root).config
}

/** True when `features` lists `name`, case-insensitively (`DevPanel` = `devpanel`). */
export function hasFeature(config: FwConfig, name: string): boolean {
  const wanted = name.toLowerCase()
  return config.features.some((f) => f.toLowerCase() === wanted)
}

/**
 * Development mode: env `FW_DEBUG` set and not `''`, `0` or
 * `false`; or config `debug`; or config `development`; or `NODE_ENV=development`. A debug grant
 * never makes it true.
 */
export function isDevelopment(config: FwConfig, env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.FW_DEBUG
  if (flag !== undefined && flag !== '' && flag !== '0' && flag.toLowerCase() !== 'false')
    return true
  return config.debug || config.development || env.NODE_ENV === 'development'
}
