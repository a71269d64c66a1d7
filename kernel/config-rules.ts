// Config rules: what each kind accepts, checking a slice's declaration and its resolved values.
import type { ConfigKind, ConfigRule, ConfigRuleObject, ConfigSlice } from './config-types.js'
import { isPlainObject } from './config-sources.js'
import { configErrors } from './error-codes.js'
import { isSecretKey, MASK } from './redact.js'

const EXPECTED: Record<ConfigKind, string> = {
  string: 'a string',
  integer: 'an integer',
  boolean: 'true or false',
  'string[]': 'an array of strings',
  port: 'an integer from 0 to 65535',
  seconds: 'a whole number of seconds, 0 or more',
}

/** A rule, string or object, taken apart. */
export interface Rule {
  readonly kind: ConfigKind
  readonly optional: boolean
  readonly min?: number
  readonly max?: number
  readonly check?: (value: unknown) => string | undefined
}

export function ruleOf(rule: ConfigRule | ConfigRuleObject): Rule {
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

/** A wrong value as an error message shows it: a secret key's value masked (the one redaction rule). */
function shown(path: string, value: unknown): string {
  if (value !== undefined && isSecretKey(path.split('.').at(-1)!)) return MASK
  return JSON.stringify(value) ?? 'undefined'
}

/** Checks a resolved slice against its rules; fails naming the first wrong key. */
export function validate(values: Record<string, unknown>, schema: ConfigSlice['schema']): void {
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
