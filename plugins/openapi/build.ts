// Builds the OpenAPI 3.0.3 document from scanned routes (spec-notes "API documents"), with
// openapi3-ts's builder and types.
import { STATUS_CODES } from 'node:http'
import type { Route } from 'fw'
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ResponsesObject,
  SecurityRequirementObject,
} from 'openapi3-ts/oas30'
import type { ScannedRoute } from './scan.js'

/** A security scheme the document knows: the API-key header, or a bearer token. */
export type SecurityName = 'apiKey' | 'bearerAuth'

/** What the document says about itself. */
export interface DocumentInfo {
  readonly title: string
  readonly version: string
  /** `servers[].url`; none: the document says nothing (clients use its own origin). */
  readonly servers: readonly string[]
}

/** Which schemes a route requires, from its middleware and permissions. */
export type SecurityOf = (route: Route) => readonly SecurityName[]

const SCHEMES = {
  apiKey: { type: 'apiKey', in: 'header', name: 'apiKey' },
  bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
} as const

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch'] as const
type DocumentedMethod = (typeof METHODS)[number]

/** `v1.products.show` → an operationId; a route with several methods gets one per method. */
function operationId(route: Route, method: string, methods: number): string {
  const base = route.name ?? `${method}_${route.path.replace(/[{}?]/g, '').replace(/\W+/g, '_')}`
  return methods > 1 ? `${base}.${method}` : base
}

function parameters(route: Route): ParameterObject[] {
  return [...route.path.matchAll(/\{(\w+)\??\}/g)].map(([, name]) => {
    const digits = route.wheres[name!]?.source.replace(/^\^\(\?:|\)\$$/g, '') === '\\d+'
    return {
      name: name!,
      in: 'path',
      required: true,
      schema: digits ? { type: 'integer' } : { type: 'string' },
    }
  })
}

function responses(route: Route): ResponsesObject {
  const declared = route.schema?.responses
  if (declared === undefined || Object.keys(declared).length === 0)
    return { default: { description: 'The response.' } }
  const out: ResponsesObject = {}
  for (const [status, response] of Object.entries(declared)) {
    out[status] = {
      description: response.description ?? STATUS_CODES[Number(status)] ?? 'The response.',
      ...(response.schema === undefined
        ? {}
        : { content: { 'application/json': { schema: response.schema } } }),
    }
  }
  return out
}

function operation(
  scanned: ScannedRoute,
  method: string,
  methods: number,
  security: readonly SecurityName[],
): OperationObject {
  const { route, comment, tag } = scanned
  const schema = route.schema
  const summary = schema?.summary ?? comment?.summary
  const description = schema?.description ?? comment?.description
  const params = parameters(route)
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
            content: { 'application/json': { schema: schema.body } },
          },
        }),
    responses: responses(route),
  }
  // One requirement naming every scheme: the route needs all of them (an API key and a token).
  if (security.length > 0)
    op.security = [
      Object.fromEntries(security.map((name) => [name, []])) as SecurityRequirementObject,
    ]
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
  securityOf: SecurityOf,
): Promise<OpenAPIObject> {
  const { OpenApiBuilder } = await import('openapi3-ts/oas30')
  const builder = OpenApiBuilder.create({
    openapi: '3.0.3',
    info: { title: info.title, version: info.version },
    paths: {},
  })
  for (const url of info.servers) builder.addServer({ url })
  const paths = new Map<string, PathItemObject>()
  const used = new Set<SecurityName>()
  const tags = new Set<string>()
  for (const scanned of routes) {
    const path = `/${scanned.route.path.replace(/\{(\w+)\?\}/g, '{$1}')}`
    const item = paths.get(path) ?? {}
    const methods = scanned.route.methods
      .map((m) => m.toLowerCase())
      .filter((m): m is DocumentedMethod => (METHODS as readonly string[]).includes(m))
    const security = securityOf(scanned.route)
    for (const name of security) used.add(name)
    for (const method of methods) {
      const op = operation(scanned, method, methods.length, security)
      for (const tag of op.tags ?? []) tags.add(tag)
      item[method] = op
    }
    paths.set(path, item)
  }
  for (const path of [...paths.keys()].sort()) builder.addPath(path, paths.get(path)!)
  for (const name of [...used].sort()) builder.addSecurityScheme(name, SCHEMES[name])
  for (const tag of [...tags].sort()) builder.addTag({ name: tag })
  return builder.getSpec()
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
 * Deep-merges `overrides` over `doc` (spec-notes "API documents"): objects merge key by key,
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
