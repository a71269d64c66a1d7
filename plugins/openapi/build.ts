// Builds the OpenAPI 3.0.3 document from scanned routes (docs/openapi.md), with
// openapi3-ts's builder and types.
import { STATUS_CODES } from 'node:http'
import { isMultipartSchema, type Route } from 'fw'
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ResponsesObject,
  SchemaObject,
  SecurityRequirementObject,
} from 'openapi3-ts/oas30'
import type { ScannedRoute } from './scan.js'

/** A security scheme the document knows: the API-key header, or a bearer token. */
export type SecurityName = 'apiKey' | 'bearerAuth'

/** What the document says about itself. */
export interface DocumentInfo {
  readonly title: string
  readonly version: string
  /** `servers[].url`; `/` (the document's own origin) when none is configured. */
  readonly servers: readonly string[]
  /** `info.license`: the app's package.json `license`, when it has one. */
  readonly license?: { readonly name: string; readonly url?: string }
  /**
   * The scheme of `Authorization` that carries an access token (the auth plugin's
   * `auth.token_scheme`). Default `Bearer`: `bearerAuth` is HTTP bearer authentication; any other
   * (`Token`) is not an HTTP scheme OpenAPI can name, so `bearerAuth` becomes the `Authorization`
   * header as an API key, its description saying how to write it.
   */
  readonly tokenScheme?: string
}

/** What a route's middleware and permissions tell the document about it. */
export interface RouteFacts {
  /** The schemes it requires. */
  readonly security: readonly SecurityName[]
  /** Statuses its middleware may answer instead of the route (`documentResponses`), with their meaning. */
  readonly responses: Readonly<Record<number, string>>
}

/** The facts of a route (generate.ts reads them off the kernel's registered middleware). */
export type FactsOf = (route: Route) => RouteFacts

const SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'apiKey' },
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
} as const

/** The security scheme object of `name` under `info`'s token scheme. */
function schemeObject(name: SecurityName, info: DocumentInfo) {
  const token = info.tokenScheme
  if (name !== 'bearerAuth' || token === undefined || token.toLowerCase() === 'bearer')
    return SCHEMES[name]
  return {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: `An access token (JWT) as \`Authorization: ${token} <token>\`.`,
  } as const
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch'] as const
type DocumentedMethod = (typeof METHODS)[number]

/** `v1.products.show` → an operationId; a route with several methods gets one per method. */
function operationId(route: Route, method: string, methods: number): string {
  const base = route.name ?? `${method}_${route.path.replace(/[{}?]/g, '').replace(/\W+/g, '_')}`
  return methods > 1 ? `${base}.${method}` : base
}

function pathParameters(route: Route): ParameterObject[] {
  return [...route.path.matchAll(/\{(\w+)\??\}/g)].map(([, name]) => {
    const digits = route.wheres[name!]?.source.replace(/^\^\(\?:|\)\$$/g, '') === '\\d+'
    return {
      name: name!,
      in: 'path',
      required: true,
      // `\d+` matches exactly the integers ≥ 0: a negative one matches no route (a 404, before
      // any middleware), so the document must not offer it (test/fuzz finds the difference).
      schema: digits ? { type: 'integer', minimum: 0 } : { type: 'string' },
    }
  })
}

type JsonSchemaObject = Record<string, unknown>

/**
 * An object, or an array of objects (DataTables' `order[0][column]=0`): sent in brackets, the
 * deepObject style (the generated client writes them so).
 */
function isStructured(schema: JsonSchemaObject): boolean {
  if (schema.type === 'object') return true
  const items = schema.items as JsonSchemaObject | undefined
  return schema.type === 'array' && items?.type === 'object'
}

/**
 * The route's declared query (`schema.query`, an object schema): one parameter per property; an
 * object-valued one (`search[value]=…`) or an array of objects in the deepObject style.
 */
function queryParameters(route: Route): ParameterObject[] {
  const query = route.schema?.query as
    { properties?: Record<string, JsonSchemaObject>; required?: readonly string[] } | undefined
  return Object.entries(query?.properties ?? {}).map(([name, schema]) => {
    const { description, ...rest } = schema
    return {
      name,
      in: 'query',
      ...(description === undefined ? {} : { description: String(description) }),
      ...(query?.required?.includes(name) === true ? { required: true } : {}),
      ...(isStructured(rest) ? { style: 'deepObject', explode: true } : {}),
      schema: rest,
    }
  })
}

/** The `Error` component: the JSON body of every error fw answers (kernel, API middleware, 422). */
export const ERROR_SCHEMA: SchemaObject = {
  type: 'object',
  required: ['error'],
  properties: {
    error: { type: 'string', description: 'A stable code: `not_found`, `APIKeyMissing`, …' },
    message: { type: 'string' },
    status: { type: 'integer' },
    statusmessage: { type: 'string' },
    errors: {
      type: 'object',
      description: 'Invalid fields, each with its messages (422).',
      additionalProperties: { type: 'array', items: { type: 'string' } },
    },
    issues: {
      type: 'array',
      description: "The validator's findings (422), one per problem.",
      items: {
        type: 'object',
        required: ['field', 'keyword', 'message', 'params'],
        properties: {
          field: {
            type: 'string',
            description: 'The field: `price`, `tags.1`; `""` for the body.',
          },
          keyword: { type: 'string', description: 'The JSON Schema keyword that failed.' },
          message: { type: 'string' },
          params: {
            type: 'object',
            description: "The keyword's own figures (`limit`, `missingProperty`, …).",
            additionalProperties: true,
          },
        },
      },
    },
  },
}

const ERROR_REF = { $ref: '#/components/schemas/Error' }

/**
 * The errors an operation can answer, from what fw knows of its route: 401 when it needs a
 * credential, 404 when its path has a parameter, 400 and 422 when it takes a body, and what its
 * middleware documented (the API key's 403, a lockout's or a rate limit's 429). A 403 is listed
 * only where something can send it: a route's permissions or a middleware that says so.
 */
function derivedErrors(route: Route, facts: RouteFacts): Record<number, string> {
  const out: Record<number, string> = {}
  if (facts.security.length > 0) out[401] = 'No valid credential.'
  if (/\{\w+\??\}/.test(route.path)) out[404] = 'Nothing has this id.'
  const body = route.schema?.body
  if (body !== undefined && isMultipartSchema(body)) {
    out[400] = 'The multipart body is malformed or incomplete.'
    out[413] = 'A file, a field or the whole body is over its limit.'
    out[422] = 'A part does not match the schema, or a file is not of an accepted type.'
  } else if (body !== undefined) {
    out[400] = 'The body is not valid JSON.'
    out[422] = 'The body does not match the schema.'
  }
  return { ...out, ...facts.responses }
}

/** The declared responses, then the derived errors; every error with fw's JSON error body. */
function responses(route: Route, facts: RouteFacts): ResponsesObject {
  const declared = route.schema?.responses ?? {}
  const out: ResponsesObject = {}
  for (const [status, response] of Object.entries(declared)) {
    const isError = Number(status) >= 400
    out[status] = {
      description: response.description ?? STATUS_CODES[Number(status)] ?? 'The response.',
      // An error declared without a body answers fw's error body all the same.
      ...(response.schema === undefined && !isError
        ? {}
        : { content: { 'application/json': { schema: response.schema ?? ERROR_REF } } }),
    }
  }
  if (Object.keys(declared).every((status) => Number(status) >= 400))
    out.default = { description: 'The response.' }
  for (const [status, description] of Object.entries(derivedErrors(route, facts)))
    out[status] ??= { description, content: { 'application/json': { schema: ERROR_REF } } }
  return out
}

function operation(
  scanned: ScannedRoute,
  method: string,
  methods: number,
  facts: RouteFacts,
): OperationObject {
  const { route, comment, tag } = scanned
  const schema = route.schema
  const summary = schema?.summary ?? comment?.summary
  const description = schema?.description ?? comment?.description
  const params = [...pathParameters(route), ...queryParameters(route)]
  const op: OperationObject = {
    operationId: operationId(route, method, methods),
    ...(summary === undefined ? {} : { summary }),
    ...(description === undefined ? {} : { description }),
    tags: [...(schema?.tags ?? [tag])],
    ...(params.length === 0 ? {} : { parameters: params }),
    ...(schema?.body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            // A body declaring a file (`format: binary`) is a form of parts.
            content: {
              [isMultipartSchema(schema.body) ? 'multipart/form-data' : 'application/json']: {
                schema: schema.body,
              },
            },
          },
        }),
    responses: responses(route, facts),
  }
  // One requirement naming every scheme: the route needs all of them (an API key and a token).
  // A public operation says so with `security: []` rather than leaving a reader (or Redocly's
  // `security-defined`) to guess (test/examples/conduit-openapi.test.ts).
  op.security =
    facts.security.length > 0
      ? [Object.fromEntries(facts.security.map((name) => [name, []])) as SecurityRequirementObject]
      : []
  return op
}

/**
 * The document of `routes`: paths, operations, security schemes used, tags, servers. openapi3-ts
 * (and the YAML library it brings) loads here, on the first document built, never when the app
 * starts.
 */
export async function buildDocument(
  routes: readonly ScannedRoute[],
  info: DocumentInfo,
  factsOf: FactsOf,
): Promise<OpenAPIObject> {
  const { OpenApiBuilder } = await import('openapi3-ts/oas30')
  const builder = OpenApiBuilder.create({
    openapi: '3.0.3',
    info: {
      title: info.title,
      version: info.version,
      ...(info.license === undefined ? {} : { license: { ...info.license } }),
    },
    paths: {},
  })
  for (const url of info.servers.length === 0 ? ['/'] : info.servers) builder.addServer({ url })
  const paths = new Map<string, PathItemObject>()
  const used = new Set<SecurityName>()
  const tags = new Map<string, string | undefined>()
  for (const scanned of routes) {
    const path = `/${scanned.route.path.replace(/\{(\w+)\?\}/g, '{$1}')}`
    const item = paths.get(path) ?? {}
    const methods = scanned.route.methods
      .map((m) => m.toLowerCase())
      .filter((m): m is DocumentedMethod => (METHODS as readonly string[]).includes(m))
    const facts = factsOf(scanned.route)
    for (const name of facts.security) used.add(name)
    for (const method of methods) {
      const op = operation(scanned, method, methods.length, facts)
      for (const tag of op.tags ?? [])
        if (tags.get(tag) === undefined)
          tags.set(tag, tag === scanned.tag ? tagDescription(scanned) : undefined)
      item[method] = op
    }
    paths.set(path, item)
  }
  for (const path of [...paths.keys()].sort()) builder.addPath(path, paths.get(path)!)
  for (const name of [...used].sort()) builder.addSecurityScheme(name, schemeObject(name, info))
  for (const [name, description] of [...tags].sort(([a], [b]) => a.localeCompare(b)))
    builder.addTag({ name, description: description ?? `The ${name} operations.` })
  if (paths.size > 0) builder.addSchema('Error', ERROR_SCHEMA)
  return builder.getSpec()
}

/** The controller's doc comment, summary and description, as its tag's description. */
function tagDescription(scanned: ScannedRoute): string | undefined {
  const c = scanned.tagComment
  if (c === undefined) return undefined
  return c.description === undefined ? c.summary : `${c.summary} ${c.description}`
}

/** Counts what a document holds: paths, and operations over every path. */
export function countOperations(doc: OpenAPIObject): { paths: number; operations: number } {
  const items = Object.values(doc.paths ?? {}) as PathItemObject[]
  const operations = items.reduce(
    (n, item) => n + METHODS.filter((m) => item[m] !== undefined).length,
    0,
  )
  return { paths: items.length, operations }
}

/**
 * Deep-merges `overrides` over `doc` (docs/openapi.md "Overrides"): objects merge key by key,
 * scalars and arrays replace; generated paths are kept (an override adds to them or changes
 * their keys).
 */
export function mergeOverrides(doc: unknown, overrides: unknown): unknown {
  if (!isPlainObject(doc) || !isPlainObject(overrides)) return overrides
  const out: Record<string, unknown> = { ...doc }
  for (const [key, value] of Object.entries(overrides)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue
    out[key] = key in out ? mergeOverrides(out[key], value) : value
  }
  return out
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
