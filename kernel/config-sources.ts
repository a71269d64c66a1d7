// Where config values come from besides defaults: the environment, `FW_CONFIG`, and deep merging.
import type { ConfigKind } from './config-types.js'
import { configErrors } from './error-codes.js'

/** True for an object that is not `null` or an array: a config section to merge into. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
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

/** An environment variable's value as the kind it sets; fails naming the variable otherwise. */
export function parseEnv(name: string, raw: string, kind: ConfigKind): unknown {
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
export function parseFwConfig(env: NodeJS.ProcessEnv): Record<string, unknown> {
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

/** The entries of `source` under `keys` (its own keys only). */
export function pick(
  source: Record<string, unknown>,
  keys: readonly string[],
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const k of keys) if (Object.hasOwn(source, k)) out[k] = source[k]
  return out
}

/** Sets the leaf at a dotted path in `target`, making the objects on the way. */
export function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const parts = path.split('.')
  let cur = target
  for (const part of parts.slice(0, -1)) {
    if (!isPlainObject(cur[part])) cur[part] = {}
    cur = cur[part] as Record<string, unknown>
  }
  cur[parts.at(-1)!] = value
}
