import { configErrors } from './error-codes.js'
import { isSecretKey, MASK } from './redact.js'

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
      app: { name: 'fw', key: undefined, root },
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
        // No sniffing anywhere; pages cannot be framed and send only their origin to other sites.
        security_headers: {
          content_type_options: 'nosniff',
          frame_options: 'DENY',
          referrer_policy: 'strict-origin-when-cross-origin',
          content_security_policy: '',
        },
      },
    },
    schema: {
      'app.name': 'string',
      'app.key': 'string?',
      'app.root': 'string',
      debug: 'boolean',
      development: 'boolean',
      features: 'string[]',
      'http.port': 'port',
      'http.host': 'string',
      'http.body_limit': 'integer',
      'http.trust_proxy': 'boolean',
      'http.drain_timeout': 'seconds',
      'http.shutdown_delay': 'seconds',
      'http.security_headers.content_type_options': 'string',
      'http.security_headers.frame_options': 'string',
      'http.security_headers.referrer_policy': 'string',
      'http.security_headers.content_security_policy': 'string',
    },
    env: { 'http.port': 'PORT', 'http.host': 'HOST', 'app.key': 'FW_APP_KEY' },
  }
}

const EXPECTED: Record<ConfigKind, string> = {
  string: 'a string',
  integer: 'an integer',
  boolean: 'true or false',
  'string[]': 'an array of strings',
  port: 'an integer from 0 to 65535',
  seconds: 'a whole number of seconds, 0 or more',
}

/** A rule, string or object, taken apart. */
interface Rule {
  readonly kind: ConfigKind
  readonly optional: boolean
  readonly min?: number
  readonly max?: number
  readonly check?: (value: unknown) => string | undefined
}

function ruleOf(rule: ConfigRule | ConfigRuleObject): Rule {
  const spec: {
    kind: ConfigRule
    min?: number
    max?: number
    check?: (value: never) => string | undefined
  } = typeof rule === 'string' ? { kind: rule } : rule
  const optional = spec.kind.endsWith('?')
  const kind = (optional ? spec.kind.slice(0, -1) : spec.kind) as ConfigKind
  return {
    kind,
    optional,
    min: spec.min,
    max: spec.max,
    check: spec.check as Rule['check'],
  }
}

/** What a value's bounds measure, and the kind's own bounds. */
function measureOf(kind: ConfigKind, value: unknown): number {
  if (kind === 'string') return [...(value as string)].length
  if (kind === 'string[]') return (value as string[]).length
  return value as number
}

/** What a rule expects, bounds included: `an integer from 1 to 100`. */
function expectedOf(rule: Rule): string {
  const { kind, min, max } = rule
  const or = rule.optional ? ' (or left out)' : ''
  if (min === undefined && max === undefined) return `${EXPECTED[kind]}${or}`
  if (kind === 'string' || kind === 'string[]') {
    const lead = kind === 'string' ? 'a string of' : 'an array of strings with'
    const range =
      min !== undefined && max !== undefined
        ? `${min} to ${max}`
        : min !== undefined
          ? `at least ${min}`
          : `at most ${max}`
    const one = (min ?? max) === 1 && (min === undefined || max === undefined)
    const unit = kind === 'string' ? (one ? 'character' : 'characters') : one ? 'entry' : 'entries'
    return `${lead} ${range} ${unit}${or}`
  }
  const base = kind === 'seconds' ? 'a whole number of seconds' : 'an integer'
  const floor = kind === 'integer' ? undefined : 0
  const ceiling = kind === 'port' ? 65535 : undefined
  const lo = min === undefined ? floor : floor === undefined ? min : Math.max(min, floor)
  const hi = max === undefined ? ceiling : ceiling === undefined ? max : Math.min(max, ceiling)
  const range =
    lo !== undefined && hi !== undefined
      ? ` from ${lo} to ${hi}`
      : lo !== undefined
        ? `, ${lo} or more`
        : `, ${hi} or less`
  return `${base}${range}${or}`
}

/** Why a rule object is malformed, or undefined. */
function ruleProblem(path: string, rule: unknown): string | undefined {
  const kinds = `use one of ${Object.keys(EXPECTED).join(', ')} (with '?' if it may be unset)`
  if (typeof rule === 'string')
    return rule.replace(/\?$/, '') in EXPECTED
      ? undefined
      : `config.schema['${path}'] is ${JSON.stringify(rule)}; ${kinds}.`
  if (!isPlainObject(rule) || typeof rule.kind !== 'string')
    return `config.schema['${path}'] is ${JSON.stringify(rule)}; ${kinds}, or a rule object { kind, min?, max?, check? }.`
  const kind = rule.kind.replace(/\?$/, '')
  if (!(kind in EXPECTED))
    return `config.schema['${path}'].kind is ${JSON.stringify(rule.kind)}; ${kinds}.`
  for (const bound of ['min', 'max'] as const) {
    const b = rule[bound]
    if (b === undefined) continue
    if (kind === 'boolean') return `config.schema['${path}'] is a boolean: it takes no ${bound}.`
    if (typeof b !== 'number' || !Number.isFinite(b))
      return `config.schema['${path}'].${bound} is ${JSON.stringify(b)}; give a number.`
  }
  if (typeof rule.min === 'number' && typeof rule.max === 'number' && rule.min > rule.max)
    return `config.schema['${path}'] has min ${rule.min} above max ${rule.max}.`
  if (rule.check !== undefined && typeof rule.check !== 'function')
    return `config.schema['${path}'].check is not a function; give (value) => string | undefined.`
  return undefined
}

function isKind(value: unknown, kind: ConfigKind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string'
    case 'integer':
      return Number.isInteger(value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'string[]':
      return Array.isArray(value) && value.every((v) => typeof v === 'string')
    case 'port':
      return Number.isInteger(value) && (value as number) >= 0 && (value as number) <= 65535
    case 'seconds':
      return Number.isInteger(value) && (value as number) >= 0
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

const UNSAFE_KEYS = new Set(['__proto__', 'constructor', 'prototype'])

/** Deep-merges `over` into a copy of `base`: objects merge key by key, arrays and scalars replace. */
export function deepMerge<T>(base: T, over: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? base : over) as T
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(over)) {
    if (UNSAFE_KEYS.has(k)) continue
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k], v) : v
  }
  return out as T
}

/** The dotted paths of an object's leaves (scalars, arrays, `undefined`). */
function leavesOf(value: Record<string, unknown>, prefix = ''): string[] {
  return Object.entries(value).flatMap(([k, v]) =>
    isPlainObject(v) ? leavesOf(v, `${prefix}${k}.`) : [`${prefix}${k}`],
  )
}

/**
 * Why a slice is malformed (a leaf without a rule, a rule or variable for no leaf), or undefined.
 * `definePlugin` refuses such a slice where the plugin is defined.
 */
export function sliceProblem(slice: ConfigSlice): string | undefined {
  if (!isPlainObject(slice) || !isPlainObject(slice.defaults) || !isPlainObject(slice.schema))
    return '`config` needs `defaults` (an object) and `schema` (a rule per key).'
  const leaves = leavesOf(slice.defaults)
  const rules = slice.schema as Record<string, unknown>
  const missing = leaves.find((p) => rules[p] === undefined)
  if (missing !== undefined) return `config.schema has no rule for '${missing}'.`
  const stray = [...Object.keys(rules), ...Object.keys(slice.env ?? {})].find(
    (p) => !leaves.includes(p),
  )
  if (stray !== undefined) return `config names '${stray}', which config.defaults does not have.`
  for (const [path, rule] of Object.entries(rules)) {
    const problem = ruleProblem(path, rule)
    if (problem !== undefined) return problem
  }
  return undefined
}

function parseEnv(name: string, raw: string, kind: ConfigKind): unknown {
  switch (kind) {
    case 'integer':
    case 'port':
    case 'seconds':
      if (!/^\d+$/.test(raw)) {
        throw configErrors.error('FW_ERR_CONFIG_ENV', {
          variable: `${name}=${JSON.stringify(raw)}`,
          problem: `is not a whole number. Set it to digits only, e.g. ${name}=3000.`,
        })
      }
      return Number(raw)
    case 'boolean':
      if (/^(1|true)$/i.test(raw)) return true
      if (/^(0|false)$/i.test(raw)) return false
      throw configErrors.error('FW_ERR_CONFIG_ENV', {
        variable: `${name}=${JSON.stringify(raw)}`,
        problem: 'is not a boolean. Set it to true or false.',
      })
    case 'string[]':
      return raw.split(',').map((s) => s.trim())
    case 'string':
      return raw
  }
}

/** `FW_CONFIG`, parsed: a JSON object merged over everything else. */
function parseFwConfig(env: NodeJS.ProcessEnv): Record<string, unknown> {
  const raw = env.FW_CONFIG
  if (raw === undefined || raw.trim() === '') return {}
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch (cause) {
    throw configErrors.error('FW_ERR_CONFIG_ENV', {
      variable: 'FW_CONFIG',
      problem: `is not valid JSON (${(cause as Error).message}). It must be a JSON object, e.g. FW_CONFIG='{"features":["debug"]}'.`,
    })
  }
  if (!isPlainObject(parsed)) {
    throw configErrors.error('FW_ERR_CONFIG_ENV', {
      variable: 'FW_CONFIG',
      problem: 'must be a JSON object, e.g. FW_CONFIG=\'{"features":["debug"]}\'.',
    })
  }
  return parsed
}

function pick(source: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of keys) if (Object.hasOwn(source, k)) out[k] = source[k]
  return out
}

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.')
  let cur = target
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(cur[part])) cur[part] = {}
    cur = cur[part] as Record<string, unknown>
  }
  cur[parts.at(-1)!] = value
}

/** A wrong value as an error message shows it: a secret key's value masked (the one redaction rule). */
function shown(path: string, value: unknown): string {
  if (value !== undefined && isSecretKey(path.split('.').at(-1)!)) return MASK
  return JSON.stringify(value) ?? 'undefined'
}

/** Checks a resolved slice against its rules; fails naming the first wrong key. */
function validate(values: Record<string, unknown>, schema: ConfigSlice['schema']): void {
  for (const [path, spec] of Object.entries(schema) as [string, ConfigRule | ConfigRuleObject][]) {
    const rule = ruleOf(spec)
    const { kind, optional, min, max } = rule
    let value: unknown = values
    const parts = path.split('.')
    for (const [i, part] of parts.entries()) {
      if (!isPlainObject(value)) {
        const at = parts.slice(0, i).join('.')
        throw configErrors.error('FW_ERR_CONFIG_INVALID', {
          key: at,
          expected: `an object (with '${parts[i]}')`,
          got: JSON.stringify(value),
        })
      }
      value = value[part]
    }
    if (value === undefined && optional) continue
    const outside =
      isKind(value, kind) &&
      ((min !== undefined && measureOf(kind, value) < min) ||
        (max !== undefined && measureOf(kind, value) > max))
    if (!isKind(value, kind) || outside) {
      throw configErrors.error('FW_ERR_CONFIG_INVALID', {
        key: path,
        expected: expectedOf(rule),
        got: shown(path, value),
      })
    }
    const problem = rule.check?.(value)
    if (problem !== undefined) {
      throw configErrors.error('FW_ERR_CONFIG_INVALID', {
        key: path,
        problem: problem.trim().replace(/\.$/, ''),
        got: shown(path, value),
      })
    }
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
