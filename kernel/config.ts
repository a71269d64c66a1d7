// The configuration: its public types, the kernel's own slice, and the resolver that builds it.
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

/**
 * The resolved configuration. The kernel owns `app`, `debug`, `development`, `features` and `http`;
 * every other key belongs to the plugin that declares it: by declaration merging on this interface
 * for the type, and with a {@link ConfigSlice} given to `definePlugin` for the defaults and the
 * checks at register time.
 *
 * @example
 * declare module 'fw' {
 *   interface FwConfig {
 *     greeter: { greeting: string }
 *   }
 * }
 */
export interface FwConfig {
  app: {
    /** The application's name (health reports, logs). */
    name: string
    /** The application key: signs debug grants and HS256 tokens. `FW_APP_KEY` overrides it. */
    key: string | undefined
    /** The application's own directory: `var/log`, `var/keys`, `var/MAINTENANCE` live under it. */
    root: string
    /**
     * Where it runs, from `NODE_ENV`: `production`, `development`, `test` or unset. Only
     * `production` changes what fw does (no development application key).
     */
    env: string | undefined
  }
  /** Development mode switch (one of four; see `isDevelopment`). */
  debug: boolean
  /** Development mode switch (one of four; see `isDevelopment`). */
  development: boolean
  /** Feature names, matched case-insensitively: `debug`, `DevPanel`, `authorization-server`. */
  features: string[]
  http: {
    port: number
    host: string
    /** Largest request body accepted, in bytes (413 above). */
    body_limit: number
    /** Trust `X-Forwarded-Proto` and `X-Forwarded-For` from a proxy in front. */
    trust_proxy: boolean
    /**
     * Seconds `kernel.close()` (SIGTERM under `fw serve`) lets requests already read finish before
     * it closes every connection (default 30; 0 closes them at once).
     */
    drain_timeout: number
    /**
     * Seconds a stopping instance keeps accepting and answering (with `Connection: close`) after
     * its readiness fails, so that a load balancer stops sending before the listener closes
     * (default 0; set it to the balancer's check interval × its fall count, plus a margin).
     */
    shutdown_delay: number
    /**
     * Compression of responses on the socket: brotli or gzip by the request's `Accept-Encoding`,
     * for text (HTML, JSON, JavaScript, CSS, SVG, XML, plain) of `threshold` bytes or more, static
     * files included. Turn it off where a proxy in front compresses.
     */
    compression: {
      /** Default true. */
      enabled: boolean
      /** The smallest body compressed, in bytes (default 1024). */
      threshold: number
    }
    /**
     * Headers added to responses that do not set them. An empty string leaves one out.
     * `content_type_options` goes on every response; the others on HTML pages only.
     */
    security_headers: {
      /** `X-Content-Type-Options` (default `nosniff`). */
      content_type_options: string
      /** `X-Frame-Options` on HTML pages (default `DENY`: no site may frame them). */
      frame_options: string
      /** `Referrer-Policy` on HTML pages (default `strict-origin-when-cross-origin`). */
      referrer_policy: string
      /** `Content-Security-Policy` on HTML pages (default none). */
      content_security_policy: string
      /**
       * `Strict-Transport-Security`, on responses to requests that came over HTTPS (TLS on the
       * socket, or `X-Forwarded-Proto: https` from a proxy trusted with `trust_proxy`). Off while
       * `max_age` is 0 (the default).
       */
      hsts: {
        /** Seconds browsers keep to HTTPS (a year, 31536000, is usual; 0: no header). */
        max_age: number
        /** Adds `includeSubDomains`: every subdomain is HTTPS-only too. */
        include_subdomains: boolean
        /** Adds `preload` (the preload list also wants a year or more and `include_subdomains`). */
        preload: boolean
      }
    }
  }
}

/** A deep partial of `T`: what a config file declares. */
export type DeepPartial<T> = {
  [K in keyof T]?: T[K] extends readonly unknown[]
    ? T[K]
    : T[K] extends object
      ? DeepPartial<T[K]>
      : T[K]
}

/** What an application declares; everything optional, merged over the defaults. */
export type UserConfig = DeepPartial<FwConfig>

/**
 * Declares an application's configuration with its keys type-checked.
 *
 * @example
 * export default defineConfig({ app: { name: 'shop' }, features: ['debug'] })
 */
export function defineConfig(config: UserConfig): UserConfig {
  return config
}

/** What a configuration value must be. */
export type ConfigKind = 'string' | 'integer' | 'boolean' | 'string[]' | 'port' | 'seconds'

/** A {@link ConfigKind}; with a `?` suffix the key may also be left unset (`undefined`). */
export type ConfigRule = ConfigKind | `${ConfigKind}?`

/** The value each {@link ConfigKind} accepts, as a rule's `check` receives it. */
export interface ConfigKindValues {
  string: string
  integer: number
  boolean: boolean
  'string[]': string[]
  port: number
  seconds: number
}

/**
 * A rule with bounds or a check of its own, for the kind it names (`kind`, `?` suffix allowed).
 * `min`/`max` (inclusive) bound the value of `integer`, `port` and `seconds`, the length in
 * characters of a `string`, the number of entries of a `string[]`; `boolean` takes none. `check`
 * runs on a value of the right kind within the bounds (never on an unset optional key) and returns
 * a sentence saying what is wrong, or `undefined` when the value is fine. Either failure fails
 * `register()` with `FW_ERR_CONFIG_INVALID`, naming the key.
 *
 * @example
 * schema: {
 *   'shop.page_size': { kind: 'integer', min: 1, max: 100 },
 *   'shop.currency': {
 *     kind: 'string',
 *     check: (v) => (/^[A-Z]{3}$/.test(v) ? undefined : 'use a three-letter code such as EUR'),
 *   },
 * }
 */
export type ConfigRuleObject = {
  [K in ConfigKind]: {
    readonly kind: K | `${K}?`
    /** The smallest value (length, number of entries) allowed. */
    readonly min?: K extends 'boolean' ? never : number
    /** The largest value (length, number of entries) allowed. */
    readonly max?: K extends 'boolean' ? never : number
    /** What is wrong with `value`, as a sentence, or `undefined` when it is fine. */
    readonly check?: (value: ConfigKindValues[K]) => string | undefined
  }
}[ConfigKind]

/** The dotted paths of the leaves (scalars and arrays) of a config shape: `'http.port'`, `'features'`. */
export type ConfigPath<T> = {
  [K in keyof T & string]: T[K] extends readonly unknown[]
    ? K
    : NonNullable<T[K]> extends object
      ? `${K}.${ConfigPath<NonNullable<T[K]>>}`
      : K
}[keyof T & string]

/**
 * The configuration keys a plugin owns: their defaults, a rule for every leaf, and the environment
 * variables that set some of them. Values resolve as defaults, then the app's config, then those
 * variables, then `FW_CONFIG`; a wrong value fails `register()` naming the key.
 *
 * @example
 * definePlugin({
 *   name: 'greeter',
 *   config: {
 *     defaults: { greeter: { greeting: 'Hello', port: undefined } },
 *     schema: { 'greeter.greeting': 'string', 'greeter.port': 'port?' },
 *     env: { 'greeter.port': 'GREETER_PORT' },
 *   },
 *   setup(kernel) {
 *     kernel.config.greeter.greeting // typed by the FwConfig declaration
 *   },
 * })
 */
export interface ConfigSlice {
  /** The slice's top-level keys with their default values (typed by `FwConfig`). */
  readonly defaults: Partial<FwConfig>
  /**
   * A rule for every leaf of `defaults`, by dotted path: a kind (`'integer'`, `'string?'`), or a
   * {@link ConfigRuleObject} with bounds or a check (`{ kind: 'integer', min: 1, max: 100 }`).
   */
  readonly schema: { readonly [P in ConfigPath<FwConfig>]?: ConfigRule | ConfigRuleObject }
  /**
   * Environment variables that set a leaf, by dotted path (an empty value is ignored): digits for
   * integer kinds, `true`/`false`/`1`/`0` for booleans, comma-separated for `string[]`.
   */
  readonly env?: { readonly [P in ConfigPath<FwConfig>]?: string }
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
