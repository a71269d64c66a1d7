// The schema-driven fuzz of an app's API document: for every operation, fast-check generates
// requests (test/fuzz/inputs.ts: valid and invalid path, query and header parameters and JSON
// bodies, with the credentials the operation names, without them, and with forged ones), sends
// them through `kernel.inject()`, and checks each answer against the document: no 5xx, a status
// the operation documents, a body that matches the documented schema for that status and content
// type (ajv), and 401 or 403 for an operation requiring credentials when they are missing or
// forged. Every distinct problem is collected (grouped, with one request that shows it and how
// often it came), so one run reports all of them. test/fuzz/playground.test.ts and
// test/fuzz/conduit.test.ts run it; CONTRIBUTING.md says how to run it longer and replay a seed.
import fc from 'fast-check'
import { Ajv } from 'ajv'
import addFormatsModule from 'ajv-formats'
import type { InjectResponse, Kernel } from 'fw'
import type { OpenAPIObject, SecuritySchemeObject } from 'openapi3-ts/oas30'
import { invalidText, invalidValue, malformedJson, validValue } from './inputs.js'
import { planOperations, type Param, type Plan } from './plan.js'

// ajv-formats is CommonJS with `exports.default`: its default import is the module object.
const addFormats = (addFormatsModule as unknown as { default: (ajv: Ajv) => Ajv }).default

/** The app under fuzz, as its test file sets it up. */
export interface FuzzTarget {
  kernel: Kernel
  /** The document the app serves (`kernel.plugin('openapi').document()`). */
  document: OpenAPIObject
  /**
   * A credential each security scheme accepts, read when a request is sent: the token of an
   * `http` bearer scheme, the whole header or query value of an `apiKey` scheme.
   */
  secret(scheme: string): string
  /** Path-parameter values naming records that exist, by parameter name (mixed with generated). */
  known?: Record<string, readonly string[]>
  /**
   * More values for a parameter than its schema tells (a query language its description explains),
   * mixed with the generated ones; `undefined` for none.
   */
  values?(plan: Plan, param: Param): fc.Arbitrary<unknown> | undefined
  /** Sees every answer (to pick up a credential an answer hands out). */
  observe?(plan: Plan, response: InjectResponse): void
}

/** How many cases per operation and which seed: `FW_FUZZ_RUNS`, `FW_FUZZ_SEED`, `FW_FUZZ_OPS`. */
export interface FuzzSettings {
  runs: number
  seed: number
  /** Only these operations, `METHOD /path` each (all when empty). */
  only: string[]
  /** `FW_FUZZ_VERBOSE`: 1 prints each operation's answers by kind of case and status, 2 each request too. */
  verbose: number
}

/** The settings from the environment; `FW_FUZZ_SEED=random` draws a seed (reported on failure). */
export function fuzzSettings(env: NodeJS.ProcessEnv = process.env): FuzzSettings {
  const seed =
    env.FW_FUZZ_SEED === 'random'
      ? Math.floor(Math.random() * 2 ** 31)
      : Number(env.FW_FUZZ_SEED ?? 4242)
  const runs = Number(env.FW_FUZZ_RUNS ?? 40)
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(runs) || runs < 1)
    throw new Error('FW_FUZZ_SEED must be an integer or "random", FW_FUZZ_RUNS a positive integer')
  const only = (env.FW_FUZZ_OPS ?? '').split(',').map((s) => s.trim())
  return {
    runs,
    seed,
    only: only.filter((s) => s !== ''),
    verbose: Number(env.FW_FUZZ_VERBOSE ?? 0) || 0,
  }
}

type Mode = 'valid' | 'invalid' | 'anonymous' | 'forged'

/** One generated request, before credentials (which are read when it is sent). */
interface Case {
  mode: Mode
  path: Record<string, string>
  query: [string, string][]
  headers: Record<string, string>
  body?: string
  /** Which value a forged credential gets. */
  forgery: number
}

/** One distinct problem: what, in which operation, how often, and a request that shows it. */
export interface Finding {
  operation: string
  problem: string
  count: number
  example: string
}

/** A query value (`style: form` or `deepObject`) as `name=value` pairs. */
function queryPairs(param: Param, value: unknown): [string, string][] {
  if (value === undefined) return []
  if (param.style === 'deepObject' && value !== null && typeof value === 'object') {
    const flat = (v: unknown, key: string): [string, string][] =>
      v !== null && typeof v === 'object'
        ? Object.entries(v).flatMap(([k, inner]) => flat(inner, `${key}[${k}]`))
        : [[key, v === null ? '' : String(v)]]
    return flat(value, param.name)
  }
  if (Array.isArray(value)) return value.map((v) => [param.name, String(v)])
  return [[param.name, value === null ? '' : String(value)]]
}

/** A path segment a router does not resolve away ('' and dot segments name other paths). */
function segment(value: unknown, fallback: string): string {
  const text = String(value ?? '')
  return text === '' || text === '.' || text === '..' ? fallback : text
}

/** A header value an HTTP client can send (visible ASCII and spaces); `undefined` otherwise. */
function headerValue(value: unknown): string | undefined {
  const text = String(value ?? '')
  return /^[\x20-\x7e]*$/.test(text) ? text : undefined
}

/** One parameter's value: valid, or (for the one chosen to break) outside its schema. */
function paramArbitrary(plan: Plan, param: Param, target: FuzzTarget): fc.Arbitrary<unknown> {
  const generated = validValue(param.schema, param.check)
  const known = target.known?.[param.name] ?? []
  const more = target.values?.(plan, param)
  const named =
    param.in === 'path' && known.length > 0
      ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...known) }, generated)
      : more
        ? fc.oneof({ weight: 3, arbitrary: more }, generated)
        : generated
  return param.required ? named : fc.option(named, { nil: undefined, freq: 3 })
}

/** Requests for one operation: every mode, each a plausible client's. */
function caseArbitrary(plan: Plan, target: FuzzTarget): fc.Arbitrary<Case> {
  const modes: Mode[] = ['valid', 'valid', 'invalid', 'invalid']
  if (plan.secured) modes.push('anonymous', 'forged')
  const body = plan.body
  return fc
    .record({
      mode: fc.noBias(fc.constantFrom(...modes)),
      values: fc.tuple(...plan.params.map((p) => paramArbitrary(plan, p, target))),
      broken: fc.tuple(...plan.params.map((p) => invalidText(p.schema))),
      breakAt: fc.noBias(fc.nat()),
      body: body ? validValue(body.schema, body.check) : fc.constant(undefined),
      badBody: body
        ? fc.oneof(
            { weight: 4, arbitrary: invalidValue(body.schema, body.check).map((v) => json(v)) },
            { weight: 1, arbitrary: malformedJson },
          )
        : fc.constant(undefined),
      forgery: fc.noBias(fc.nat()),
    })
    .map(({ mode, values, broken, breakAt, body: good, badBody, forgery }): Case => {
      // An invalid case breaks one thing: one parameter, or the body.
      const targets = plan.params.length + (body ? 1 : 0)
      const hit = mode === 'invalid' && targets > 0 ? breakAt % targets : -1
      const c: Case = { mode, path: {}, query: [], headers: {}, forgery }
      plan.params.forEach((param, i) => {
        const value = i === hit ? broken[i] : values[i]
        if (param.in === 'path')
          c.path[param.name] = segment(value, target.known?.[param.name]?.[0] ?? '1')
        else if (param.in === 'query') c.query.push(...queryPairs(param, value))
        else if (param.in === 'header' && value !== undefined) {
          const text = headerValue(value)
          if (text !== undefined) c.headers[param.name.toLowerCase()] = text
        }
      })
      if (body) c.body = hit === plan.params.length ? badBody : json(good ?? {})
      return c
    })
}

function json(value: unknown): string {
  return JSON.stringify(value) ?? 'null'
}

/** Forged stand-ins for a credential: empty, junk, the real one altered, an unsigned JWT. */
function forge(real: string, which: number): string {
  const space = real.lastIndexOf(' ')
  const prefix = space >= 0 ? real.slice(0, space + 1) : ''
  const token = real.slice(prefix.length)
  const at = Math.max(0, token.length - 5)
  const altered = token.slice(0, at) + (token[at] === 'A' ? 'B' : 'A') + token.slice(at + 1)
  const unsigned = 'eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiIxIiwidXNlcnR5cGUiOjEwMH0.'
  return prefix + (['', 'x', altered, unsigned][which % 4] ?? '')
}

/** Headers and query pairs carrying the credentials of the operation's first requirement. */
function credentials(
  plan: Plan,
  target: FuzzTarget,
  c: Case,
): { headers: Record<string, string>; query: [string, string][] } {
  const headers: Record<string, string> = {}
  const query: [string, string][] = []
  if (c.mode === 'anonymous') return { headers, query }
  for (const [name, scheme] of Object.entries(plan.security[0] ?? {})) {
    const real = target.secret(name)
    const value = c.mode === 'forged' ? forge(real, c.forgery) : real
    place(scheme, value, headers, query)
  }
  return { headers, query }
}

function place(
  scheme: SecuritySchemeObject,
  value: string,
  headers: Record<string, string>,
  query: [string, string][],
): void {
  if (scheme.type === 'http')
    headers.authorization = `${scheme.scheme === 'basic' ? 'Basic' : 'Bearer'} ${value}`
  else if (scheme.type === 'apiKey' && scheme.in === 'query') query.push([scheme.name!, value])
  else if (scheme.type === 'apiKey' && scheme.in === 'cookie')
    headers.cookie = `${scheme.name}=${value}`
  else if (scheme.type === 'apiKey') headers[scheme.name!.toLowerCase()] = value
}

/** `text` with lone surrogates (which URLs cannot encode) replaced, as UTF-8 encoding does. */
function wellFormed(text: string): string {
  return Buffer.from(text, 'utf8').toString('utf8')
}

/** The request of a case: method, URL, headers, body (JSON text). */
function request(plan: Plan, target: FuzzTarget, c: Case) {
  const auth = credentials(plan, target, c)
  const path = plan.path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    encodeURIComponent(wellFormed(c.path[name] ?? '')),
  )
  const search = new URLSearchParams([...c.query, ...auth.query]).toString()
  const headers: Record<string, string> = {
    accept: 'application/json',
    ...c.headers,
    ...auth.headers,
  }
  if (c.body !== undefined) headers['content-type'] = 'application/json'
  return {
    method: plan.method.toUpperCase(),
    url: search === '' ? path : `${path}?${search}`,
    headers,
    ...(c.body === undefined ? {} : { body: c.body }),
  }
}

/** What is wrong with an answer, by the document; `undefined` when nothing is. */
function problemOf(plan: Plan, c: Case, res: InjectResponse): string | undefined {
  const status = res.status
  if (
    plan.secured &&
    (c.mode === 'anonymous' || c.mode === 'forged') &&
    status !== 401 &&
    status !== 403
  )
    return `${status} to a request with ${c.mode === 'forged' ? 'a forged credential' : 'no credential'} (401 or 403 expected)`
  const documented =
    plan.responses[String(status)] ??
    plan.responses[`${String(status)[0]}XX`] ??
    plan.responses.default
  if (status >= 500) return `${status}${documented ? '' : ', undocumented'}`
  if (!documented)
    return `${status} is not documented (documented: ${Object.keys(plan.responses).join(', ')})`
  const type = String(res.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase()
  if (res.body === '')
    return Object.keys(documented).length > 0 ? `${status} without the documented body` : undefined
  const media = documented[type]
  if (!media) return `${status} answers ${type || 'no content type'}, not documented for it`
  if (!media.check) return undefined
  let body: unknown
  try {
    body = JSON.parse(res.body)
  } catch {
    return `${status} body is not JSON although documented as ${type}`
  }
  if (media.check(body)) return undefined
  const error = media.check.errors?.[0]
  const where = (error?.instancePath ?? '').replace(/\/\d+(?=\/|$)/g, '/*')
  return `${status} body does not match its schema: ${where || '/'} ${error?.message ?? ''}`
}

/** One request and its answer, as a finding shows it (bodies cut short). */
function describe(req: ReturnType<typeof request>, res: InjectResponse | Error): string {
  const cut = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s)
  const headers = Object.entries(req.headers)
    .filter(([k]) => k !== 'accept')
    .map(([k, v]) => `${k}: ${cut(v, 60)}`)
  const sent = [`${req.method} ${cut(req.url)}`, ...headers, ...(req.body ? [cut(req.body)] : [])]
  const got = res instanceof Error ? `threw ${res.message}` : `${res.status} ${cut(res.body)}`
  return `${sent.join('\n      ')}\n    → ${got}`
}

/** Fuzzes every documented operation (destructive ones last); the distinct problems found. */
export async function fuzz(target: FuzzTarget, settings: FuzzSettings): Promise<Finding[]> {
  const ajv = addFormats(new Ajv({ allErrors: false, strict: false }))
  const all = planOperations(target.document, ajv)
  const unknown = settings.only.filter((label) => !all.some((p) => p.label === label))
  if (all.length === 0 || unknown.length > 0)
    throw new Error(`no such operation in the document: ${unknown.join(', ') || 'none at all'}`)
  const plans = all.filter((p) => settings.only.length === 0 || settings.only.includes(p.label))
  const findings = new Map<string, Finding>()
  for (const plan of plans) {
    const statuses = new Map<string, number>()
    const started = Date.now()
    await fc.assert(
      fc.asyncProperty(caseArbitrary(plan, target), async (c) => {
        const req = request(plan, target, c)
        let res: InjectResponse | Error
        try {
          res = await target.kernel.inject(req)
        } catch (error) {
          res = error as Error
        }
        const problem = res instanceof Error ? 'the request threw' : problemOf(plan, c, res)
        if (settings.verbose > 1) console.log(`[${c.mode}] ${describe(req, res)}`)
        const tally = `${c.mode} ${res instanceof Error ? 'threw' : res.status}`
        statuses.set(tally, (statuses.get(tally) ?? 0) + 1)
        if (!(res instanceof Error)) target.observe?.(plan, res)
        if (problem === undefined) return
        const key = `${plan.label}\n${problem}`
        const seen = findings.get(key)
        if (seen) seen.count++
        else
          findings.set(key, {
            operation: plan.label,
            problem,
            count: 1,
            example: describe(req, res),
          })
      }),
      { seed: settings.seed, numRuns: settings.runs, endOnFailure: true },
    )
    if (settings.verbose > 0)
      console.log(
        `${plan.label} (${Date.now() - started} ms): ${[...statuses].map(([k, n]) => `${k}×${n}`).join(', ')}`,
      )
  }
  return [...findings.values()]
}

/** The findings as an assertion message: each with its example, then how to replay the run. */
export function report(app: string, findings: Finding[], settings: FuzzSettings): string {
  const only = settings.only.length > 0 ? ` FW_FUZZ_OPS='${settings.only.join(',')}'` : ''
  const lines = findings.map(
    (f) => `  ${f.operation}: ${f.problem} (${f.count}×)\n    e.g. ${f.example}`,
  )
  return [
    `${findings.length} problem(s) in ${app}'s API:`,
    ...lines,
    `replay: FW_FUZZ_SEED=${settings.seed} FW_FUZZ_RUNS=${settings.runs}${only} node scripts/test.mjs test/fuzz/${app}.test.ts`,
  ].join('\n')
}
