// The configuration's public types: what the resolved configuration holds (`FwConfig`, which
// plugins extend by declaration merging) and how a plugin declares its slice of it.

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
