// Generated inputs for the schema-driven fuzz (test/fuzz/harness.ts): values a JSON Schema accepts,
// from json-schema-faker seeded by fast-check (so a fast-check seed replays them), with string
// leaves swapped for strings that have broken servers before wherever the schema still accepts
// them; and values it refuses, made by one mutation of a valid one.
import fc from 'fast-check'
import { generateSync, type JsonSchema } from 'json-schema-faker'

/** A JSON Schema as an OpenAPI 3.0 document writes it, `$ref`s already inlined. */
export type Schema = { [keyword: string]: unknown }

/** Tells whether a value matches a schema (ajv, compiled once per schema by the harness). */
export type Check = (value: unknown) => boolean

/**
 * Strings that broke servers: statement separators and quotes for SQL, `%` and `_` for LIKE, NUL,
 * backslashes, look-alike and invisible characters, whitespace alone, and lengths past any column.
 */
const HOSTILE = [
  ';',
  'semi;colon',
  "'",
  "' OR '1'='1",
  '"',
  '$$',
  '$1',
  '\\',
  '\u0000',
  'a\u0000b',
  '%',
  '_',
  '%_%',
  '../..',
  '\u200b',
  'ａｌｉｃｅ',
  'alıce',
  '🙂',
  ' ',
  '\t',
  '   ',
  '-1',
  '0',
  '1e400',
  'x'.repeat(201),
  'y'.repeat(10_000),
]

/** A string more likely than json-schema-faker's alphanumerics to reach an edge of the server. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 30 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
)

/** What json-schema-faker makes of `schema` with `seed`; `undefined` when it cannot. */
function fake(schema: Schema, seed: number): unknown {
  try {
    return generateSync(schema as JsonSchema, { seed, optionalsProbability: 0.6, maxLength: 40 })
  } catch {
    return undefined
  }
}

type Path = (string | number)[]

/** The paths of the string leaves of a JSON value. */
function stringLeaves(value: unknown, path: Path = []): Path[] {
  if (typeof value === 'string') return [path]
  if (Array.isArray(value)) return value.flatMap((v, i) => stringLeaves(v, [...path, i]))
  if (value !== null && typeof value === 'object')
    return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...path, k]))
  return []
}

/** A copy of `value` with `path` set to `leaf` (the whole value for an empty path). */
export function setAt(value: unknown, path: Path, leaf: unknown): unknown {
  if (path.length === 0) return leaf
  const [head, ...rest] = path as [string | number, ...Path]
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<
    string | number,
    unknown
  >
  copy[head] = setAt(copy[head], rest, leaf)
  return copy
}

/**
 * Values `check` accepts: json-schema-faker's, then each string leaf in turn swapped for a hostile
 * string when the value still passes `check` with it. `undefined` when nothing valid came out
 * (the caller then sends nothing for it).
 */
export function validValue(schema: Schema, check: Check): fc.Arbitrary<unknown> {
  return fc
    .tuple(
      fc.noShrink(fc.noBias(fc.nat())),
      fc.array(fc.option(hostileString, { freq: 3 }), { maxLength: 6 }),
    )
    .map(([seed, swaps]) => {
      let value = fake(schema, seed)
      if (value === undefined || !check(value)) return undefined
      stringLeaves(value).forEach((path, i) => {
        const swap = swaps[i]
        if (swap === undefined || swap === null) return
        const next = setAt(value, path, swap)
        if (check(next)) value = next
      })
      return value
    })
}

/** Values of the wrong JSON type, or none, to put where the schema expects something else. */
const strangers: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(null, true, 0, -1, 1.5, 1e300, '', 'x', [], {}, ['x'], { x: 1 }),
  hostileString,
)

/** A value just outside one bound or rule of `schema`, when it has one. */
function outside(schema: Schema): unknown[] {
  const out: unknown[] = []
  const num = (k: string) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined)
  const min = num('minimum')
  const max = num('maximum')
  const minLength = num('minLength')
  const maxLength = num('maxLength')
  if (min !== undefined) out.push(min - 1)
  if (max !== undefined) out.push(max + 1)
  if (schema.type === 'integer') out.push(1.5, 2 ** 53, -(2 ** 31) - 1)
  if (minLength !== undefined && minLength > 0) out.push('')
  if (maxLength !== undefined) out.push('z'.repeat(maxLength + 1))
  if (typeof schema.pattern === 'string') out.push(' ', '\t')
  if (schema.format === 'email') out.push('not-an-email', '@', 'a@')
  if (Array.isArray(schema.enum)) out.push('not-one-of-them')
  return out
}

/** Where in a generated value a mutation can go: a property of an object the schema describes. */
interface Site {
  path: Path
  schema: Schema
  required: boolean
}

function sites(value: unknown, schema: Schema, path: Path = []): Site[] {
  const found: Site[] = []
  const properties = schema.properties as Record<string, Schema> | undefined
  if (properties && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const required = (schema.required as string[] | undefined) ?? []
    for (const [key, child] of Object.entries(properties)) {
      const here = [...path, key]
      found.push({ path: here, schema: child, required: required.includes(key) })
      if (key in value) found.push(...sites((value as Record<string, unknown>)[key], child, here))
    }
  }
  if (Array.isArray(value) && schema.items)
    value.forEach((v, i) => found.push(...sites(v, schema.items as Schema, [...path, i])))
  return found
}

/** A copy of `value` without the property at `path`. */
function dropAt(value: unknown, path: Path): unknown {
  const parent = path.slice(0, -1)
  const key = path[path.length - 1]!
  let holder: unknown = value
  for (const step of parent) holder = (holder as Record<string | number, unknown>)[step]
  const copy = { ...(holder as Record<string, unknown>) }
  delete copy[key as string]
  return setAt(value, parent, copy)
}

/**
 * Values `check` most likely refuses: a valid value with one property dropped (a required one),
 * set to a value of the wrong type, or just outside its schema's bounds; or the whole value
 * replaced by one of another type. The harness sends them all; whether each is refused is the
 * server's to say, and any answer must still be documented.
 */
export function invalidValue(schema: Schema, check: Check): fc.Arbitrary<unknown> {
  return fc
    .record({
      base: validValue(schema, check),
      kind: fc.noBias(fc.constantFrom('drop', 'type', 'bound', 'whole')),
      site: fc.noBias(fc.nat()),
      pick: fc.noBias(fc.nat()),
      stranger: strangers,
    })
    .map(({ base, kind, site, pick, stranger }) => {
      const all = sites(base, schema)
      const chosen = kind === 'drop' ? all.filter((s) => s.required) : all
      const target = chosen.length > 0 ? chosen[site % chosen.length] : undefined
      if (kind === 'whole' || target === undefined) {
        const bounds = outside(schema)
        return kind === 'bound' && bounds.length > 0 ? bounds[pick % bounds.length] : stranger
      }
      if (kind === 'drop') return dropAt(base, target.path)
      if (kind === 'bound') {
        const bounds = outside(target.schema)
        if (bounds.length > 0) return setAt(base, target.path, bounds[pick % bounds.length])
      }
      return setAt(base, target.path, stranger)
    })
}

/** Request bodies that are not JSON at all (each must answer a documented 400, never a 5xx). */
export const malformedJson: fc.Arbitrary<string> = fc.constantFrom(
  '{"',
  '{',
  '[1,',
  'nul',
  '{"a":1}x',
  '',
  '\u0000',
  '{"a":"\\u00"}',
  '\uFEFF{}',
)

/** Query or path values just outside `schema`, as text: a query or path carries only text. */
export function invalidText(schema: Schema): fc.Arbitrary<string> {
  const edges = outside(schema).map((v) => String(v))
  if (schema.type === 'integer' || schema.type === 'number')
    edges.push('abc', '', '0x10', ' 1', '1e400', 'NaN', '-0', '١')
  return edges.length > 0
    ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...edges) }, hostileString)
    : hostileString
}
