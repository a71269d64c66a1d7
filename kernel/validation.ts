// Validation of request bodies by the JSON Schema a route declares (`RouteBuilder.schema`), with
// ajv: the fastest well-kept JSON Schema validator for Node (it compiles a schema into a plain
// function once; Fastify validates with it too), with OpenAPI's `nullable` built in. Loaded only
// when a route declares a schema, so an app without one does not pay for it.
import { createRequire } from 'node:module'
import type { Ajv as AjvInstance, ErrorObject, Options, ValidateFunction } from 'ajv'
import type { RequestContext } from './context.js'
import { requestErrors } from './error-codes.js'
import type { JsonSchema, Route } from './router/route.js'
import { routerErrors } from './router/router-error.js'

type AjvClass = new (options: Options) => AjvInstance

/**
 * Keywords that do not validate (ajv's strict mode refuses unknown ones): OpenAPI's Schema Object
 * annotations, and fw's {@link PATTERN_MESSAGE}.
 */
const ANNOTATIONS = ['example', 'xml', 'externalDocs', 'discriminator', 'x-pattern-message']

/**
 * The keyword that words a `pattern` for people: what the value must be, after the field's name
 * (`'x-pattern-message': 'must not be blank'` → "The name must not be blank."). A pattern without
 * one fails with "is not in the expected format": a message never shows the regular expression
 * (`params.pattern` still carries it, for programs).
 */
const PATTERN_MESSAGE = 'x-pattern-message'

/** A `pattern` failure's words: the schema's {@link PATTERN_MESSAGE}, or a generic phrase. */
function patternMessage(parentSchema: unknown): string {
  const own = (parentSchema as Record<string, unknown> | undefined)?.[PATTERN_MESSAGE]
  return typeof own === 'string' && own.trim() !== '' ? own.trim() : 'is not in the expected format'
}

let validators: { strict: AjvInstance; coercing: AjvInstance } | undefined

function ajv(): { strict: AjvInstance; coercing: AjvInstance } {
  if (validators !== undefined) return validators
  const require = createRequire(import.meta.url)
  const Ajv = (require('ajv') as { default: AjvClass }).default
  const addFormats = (require('ajv-formats') as { default: (a: AjvInstance) => AjvInstance })
    .default
  const make = (coerceTypes: boolean): AjvInstance => {
    // Unknown keywords and formats fail at boot (a typo is not silently ignored); the rest of
    // strict mode would refuse valid schemas (`required` without `properties`) or log to stdout.
    const instance = new Ajv({
      allErrors: true,
      // Errors carry the schema that failed, for a pattern's wording (only a failure pays for it).
      verbose: true,
      coerceTypes,
      strictSchema: true,
      strictNumbers: true,
      strictTypes: false,
      strictTuples: false,
      strictRequired: false,
    })
    instance.addVocabulary(ANNOTATIONS)
    return addFormats(instance)
  }
  validators = { strict: make(false), coercing: make(true) }
  return validators
}

/** One problem with a body, as the 422 reply lists it (ajv's error, its path made readable). */
export interface BodyIssue {
  /** The field: `price`, `tags.1`; `''` for the body itself. */
  readonly field: string
  readonly keyword: string
  readonly message: string
  readonly params: Record<string, unknown>
}

function fieldOf(error: ErrorObject): string {
  const path = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
  const missing = (error.params as { missingProperty?: unknown }).missingProperty
  if (error.keyword === 'required' && typeof missing === 'string') path.push(missing)
  return path.join('.')
}

function issuesOf(errors: readonly ErrorObject[]): BodyIssue[] {
  return errors.map((e) => ({
    field: fieldOf(e),
    keyword: e.keyword,
    message: e.keyword === 'pattern' ? patternMessage(e.parentSchema) : (e.message ?? 'is invalid'),
    params: e.params as Record<string, unknown>,
  }))
}

/** `{ field: [messages] }`: the issues grouped by field, each message a sentence. */
function byField(issues: readonly BodyIssue[]): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const issue of issues) {
    const name = issue.field === '' ? 'body' : issue.field
    const sentence =
      issue.keyword === 'required'
        ? `The ${name} field is required.`
        : `The ${name} ${issue.message}.`
    ;(out[name] ??= []).push(sentence)
  }
  return out
}

/** A route's body check: resolves when the body matches, rejects with the 422 otherwise. */
export type BodyCheck = (ctx: RequestContext) => Promise<void>

/**
 * Compiles the body schema of `route` (at boot, where a wrong schema fails with
 * `FW_ERR_ROUTER_INVALID_SCHEMA`). A form-urlencoded body is checked by a coercing twin, compiled
 * on the first such body, so `price=12.50` is the number the schema asks for; a JSON body must use
 * the JSON types themselves.
 */
export function compileBodyCheck(route: Route, schema: JsonSchema): BodyCheck {
  const compile = (instance: AjvInstance): ValidateFunction => {
    try {
      return instance.compile(schema)
    } catch (error) {
      throw routerErrors.error('FW_ERR_ROUTER_INVALID_SCHEMA', {
        route: route.path,
        reason: (error as Error).message,
      })
    }
  }
  const json = compile(ajv().strict)
  let form: ValidateFunction | undefined
  const multipart = isMultipartSchema(schema)
  return async (ctx) => {
    // A multipart body is not the kernel's to read: the parser that streams it (the uploads
    // plugin's `files()`) checks its parts with `checkMultipartBody` once it has them.
    if (multipart && isMultipartRequest(ctx)) return
    const body = await ctx.body()
    const isForm = (ctx.headers['content-type'] ?? '').includes('application/x-www-form-urlencoded')
    const validate = isForm ? (form ??= compile(ajv().coercing)) : json
    if (validate(body)) return
    const issues = issuesOf(validate.errors ?? [])
    throw requestErrors.httpError('FW_ERR_HTTP_BODY_INVALID', {
      body: { errors: byField(issues), issues },
    })
  }
}

/**
 * True when a body schema declares a file: a top-level property `{ type: 'string', format:
 * 'binary' }`. Such a body is `multipart/form-data` (OpenAPI's convention), read by a parser of
 * parts rather than by `ctx.body()`.
 */
export function isMultipartSchema(schema: JsonSchema): boolean {
  const properties = schema.properties as Record<string, JsonSchema> | undefined
  if (properties === undefined || typeof properties !== 'object') return false
  return Object.values(properties).some((p) => p !== null && p.format === 'binary')
}

function isMultipartRequest(ctx: RequestContext): boolean {
  return /^\s*multipart\/form-data\b/i.test(ctx.headers['content-type'] ?? '')
}

/** Per multipart schema: its parts' check, files standing for any value (compiled once). */
const partChecks = new WeakMap<JsonSchema, ValidateFunction>()

/**
 * Checks the parts of a multipart body against its route's schema, as `ctx.body()` would a form:
 * the plain fields coerced to the schema's types, each file field present (`files`, the names of
 * the fields that carried one) or missing. A mismatch throws the same 422 as a JSON body's
 * (`FW_ERR_HTTP_BODY_INVALID`, `errors` by field).
 */
export function checkMultipartBody(
  schema: JsonSchema,
  fields: Readonly<Record<string, unknown>>,
  files: readonly string[],
): void {
  let validate = partChecks.get(schema)
  if (validate === undefined) {
    const properties = schema.properties as Record<string, JsonSchema>
    const parts = Object.fromEntries(
      Object.entries(properties).map(([k, p]) => [k, p.format === 'binary' ? {} : p]),
    )
    validate = ajv().coercing.compile({ ...schema, properties: parts })
    partChecks.set(schema, validate)
  }
  const value: Record<string, unknown> = { ...fields }
  for (const name of files) value[name] = true
  if (validate(value)) return
  const issues = issuesOf(validate.errors ?? [])
  throw requestErrors.httpError('FW_ERR_HTTP_BODY_INVALID', {
    body: { errors: byField(issues), issues },
  })
}
