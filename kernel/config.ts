import { FwError } from './errors.js'

/**
 * The resolved configuration. Keys follow spec.md's "Configuration keys"; plugins add their own by
 * declaration merging on this interface.
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
  }
  database: {
    url: string | undefined
    /** Seconds to wait for a database connection (opening one, or a free one); 0: no limit. */
    acquire_timeout: number
    /** Seconds a statement may run (enforced by the server and the client); 0: no limit. */
    statement_timeout: number
  }
  auth: { token_ttl: number | undefined }
  api: { cors_origins: string[]; cors_from_db: boolean }
  debug_token_secret: string | undefined
  admin: {
    prefix: string | undefined
    theme: string | undefined
    min_usertype: number | undefined
    default_controller: string | undefined
    area: string
  }
  oauth: { private_key: string; public_key: string }
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

function defaults(root: string): FwConfig {
  return {
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
    },
    database: { url: undefined, acquire_timeout: 5, statement_timeout: 5 },
    auth: { token_ttl: undefined },
    api: { cors_origins: ['*'], cors_from_db: false },
    debug_token_secret: undefined,
    admin: {
      prefix: undefined,
      theme: undefined,
      min_usertype: undefined,
      default_controller: undefined,
      area: 'Admin',
    },
    oauth: { private_key: 'var/keys/private.key', public_key: 'var/keys/public.key' },
  }
}

type Kind = 'string' | 'integer' | 'boolean' | 'string[]' | 'port' | 'seconds'
/** What each kernel key must hold; `?` = may also be unset. Plugins' keys are not checked here. */
const SCHEMA: Record<string, `${Kind}${'' | '?'}`> = {
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
  'database.url': 'string?',
  'database.acquire_timeout': 'seconds',
  'database.statement_timeout': 'seconds',
  'auth.token_ttl': 'integer?',
  'api.cors_origins': 'string[]',
  'api.cors_from_db': 'boolean',
  debug_token_secret: 'string?',
  'admin.prefix': 'string?',
  'admin.theme': 'string?',
  'admin.min_usertype': 'integer?',
  'admin.default_controller': 'string?',
  'admin.area': 'string',
  'oauth.private_key': 'string',
  'oauth.public_key': 'string',
}

const EXPECTED: Record<Kind, string> = {
  string: 'a string',
  integer: 'an integer',
  boolean: 'true or false',
  'string[]': 'an array of strings',
  port: 'an integer from 0 to 65535',
  seconds: 'a whole number of seconds, 0 or more',
}

function isKind(value: unknown, kind: Kind): boolean {
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

/** Deep-merges `over` into a copy of `base`: objects merge key by key, arrays and scalars replace. */
export function deepMerge<T>(base: T, over: unknown): T {
  if (!isPlainObject(base) || !isPlainObject(over)) return (over === undefined ? base : over) as T
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(over)) {
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue
    out[k] = isPlainObject(v) && isPlainObject(out[k]) ? deepMerge(out[k], v) : v
  }
  return out as T
}

function get(obj: unknown, path: string): unknown {
  let cur: unknown = obj
  for (const part of path.split('.')) cur = isPlainObject(cur) ? cur[part] : undefined
  return cur
}

function parseEnvInteger(name: string, value: string): number {
  if (!/^\d+$/.test(value)) {
    throw new FwError(
      'FW_ERR_CONFIG_ENV',
      `Environment variable ${name}=${JSON.stringify(value)} is not a whole number. Set it to digits only, e.g. ${name}=3000.`,
    )
  }
  return Number(value)
}

/** The environment's overrides, as PLAYGROUND.md lists them, applied in this order. */
function fromEnv(env: NodeJS.ProcessEnv): UserConfig[] {
  const layers: UserConfig[] = []
  const http: Partial<FwConfig['http']> = {}
  if (env.PORT !== undefined && env.PORT !== '') http.port = parseEnvInteger('PORT', env.PORT)
  if (env.HOST !== undefined && env.HOST !== '') http.host = env.HOST
  if (Object.keys(http).length > 0) layers.push({ http })
  if (env.FW_APP_KEY) layers.push({ app: { key: env.FW_APP_KEY } })
  if (env.DATABASE_URL) layers.push({ database: { url: env.DATABASE_URL } })
  if (env.FW_CONFIG !== undefined && env.FW_CONFIG.trim() !== '') {
    let parsed: unknown
    try {
      parsed = JSON.parse(env.FW_CONFIG)
    } catch (cause) {
      throw new FwError(
        'FW_ERR_CONFIG_ENV',
        `FW_CONFIG is not valid JSON (${(cause as Error).message}). It must be a JSON object, e.g. FW_CONFIG='{"features":["debug"]}'.`,
      )
    }
    if (!isPlainObject(parsed)) {
      throw new FwError(
        'FW_ERR_CONFIG_ENV',
        'FW_CONFIG must be a JSON object, e.g. FW_CONFIG=\'{"features":["debug"]}\'.',
      )
    }
    layers.push(parsed as UserConfig)
  }
  return layers
}

/**
 * Resolves the configuration: defaults, then the application's config, then the environment
 * (`PORT`, `HOST`, `FW_APP_KEY`, `DATABASE_URL`, and `FW_CONFIG` deep-merged last). Fails naming
 * the key and what was expected when a value has the wrong type.
 */
export function resolveConfig(
  user: UserConfig,
  options: { root: string; env?: NodeJS.ProcessEnv },
): FwConfig {
  let config = deepMerge(defaults(options.root), user)
  for (const layer of fromEnv(options.env ?? process.env)) config = deepMerge(config, layer)
  for (const [key, rule] of Object.entries(SCHEMA)) {
    const optional = rule.endsWith('?')
    const kind = (optional ? rule.slice(0, -1) : rule) as Kind
    const value = get(config, key)
    if (value === undefined && optional) continue
    if (!isKind(value, kind)) {
      throw new FwError(
        'FW_ERR_CONFIG_INVALID',
        `Config key '${key}' must be ${EXPECTED[kind]}${optional ? ' (or left out)' : ''}, got ${JSON.stringify(value) ?? 'undefined'}.`,
      )
    }
  }
  if (config.admin.prefix !== undefined)
    config.admin.prefix = config.admin.prefix.replace(/^\/+|\/+$/g, '') || undefined
  return config
}

/** True when `features` lists `name`, case-insensitively (`DevPanel` = `devpanel`). */
export function hasFeature(config: FwConfig, name: string): boolean {
  const wanted = name.toLowerCase()
  return config.features.some((f) => f.toLowerCase() === wanted)
}

/**
 * Development mode (spec-notes.md): env `FW_DEBUG` set and not `''`, `0` or `false`; or config
 * `debug`; or config `development`; or `NODE_ENV=development`. A debug grant never makes it true.
 */
export function isDevelopment(config: FwConfig, env: NodeJS.ProcessEnv = process.env): boolean {
  const flag = env.FW_DEBUG
  if (flag !== undefined && flag !== '' && flag !== '0' && flag.toLowerCase() !== 'false')
    return true
  return config.debug || config.development || env.NODE_ENV === 'development'
}
