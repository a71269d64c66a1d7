// An OpenAPI 3.0 document read for the fuzz (test/fuzz/harness.ts): each operation's parameters and
// JSON body with their schemas ($refs inlined) and ajv validators, the security it requires, and a
// validator per documented status and content type.
import type { Ajv, ValidateFunction } from 'ajv'
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  RequestBodyObject,
  SecuritySchemeObject,
} from 'openapi3-ts/oas30'
import type { Check, Schema } from './inputs.js'

export interface Param {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required: boolean
  style?: string
  schema: Schema
  check: Check
}

/** One operation as the fuzz drives it. */
export interface Plan {
  /** `METHOD /path`, as findings name it. */
  label: string
  method: string
  path: string
  params: Param[]
  body?: { schema: Schema; check: Check }
  /** The alternatives of its security requirement, each scheme by name. */
  security: Record<string, SecuritySchemeObject>[]
  /** Whether a request without credentials must be refused (no alternative is empty). */
  secured: boolean
  /** Status (or `2XX`, `default`) → content type → the body's validator (none: not JSON). */
  responses: Record<string, Record<string, { check?: ValidateFunction }>>
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/** `node` with every local `$ref` replaced by what it points at (the documents have no cycles). */
function inline(doc: OpenAPIObject, node: unknown, depth = 0): unknown {
  if (depth > 32) throw new Error('the document nests $refs more than 32 deep')
  if (Array.isArray(node)) return node.map((n) => inline(doc, n, depth))
  if (node === null || typeof node !== 'object') return node
  const ref = (node as { $ref?: unknown }).$ref
  if (typeof ref === 'string' && ref.startsWith('#/')) {
    const target = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, key) => (at as Record<string, unknown> | undefined)?.[key], doc)
    if (target === undefined) throw new Error(`${ref} points at nothing`)
    return inline(doc, target, depth + 1)
  }
  return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(doc, v, depth)]))
}

function isJson(type: string): boolean {
  return type === 'application/json' || type.endsWith('+json')
}

/** Every operation of `doc`, the ones that delete last (so records named by others stay). */
export function planOperations(doc: OpenAPIObject, ajv: Ajv): Plan[] {
  const plans: Plan[] = []
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const method of METHODS) {
      const raw = (item as Record<string, unknown>)[method] as OperationObject | undefined
      if (raw === undefined) continue
      const op = inline(doc, raw) as OperationObject
      const shared = inline(doc, (item as { parameters?: unknown }).parameters ?? [])
      const raws = [
        ...(shared as ParameterObject[]),
        ...((op.parameters ?? []) as ParameterObject[]),
      ]
      const params = raws.map((p): Param => ({
        name: p.name,
        in: p.in,
        required: p.required === true || p.in === 'path',
        ...(p.style === undefined ? {} : { style: p.style }),
        schema: (p.schema ?? {}) as Schema,
        check: ajv.compile(p.schema ?? {}),
      }))
      const requestBody = op.requestBody as RequestBodyObject | undefined
      const bodySchema = requestBody?.content?.['application/json']?.schema as Schema | undefined
      const requirements = op.security ?? doc.security ?? []
      const schemes = (inline(doc, doc.components?.securitySchemes ?? {}) ?? {}) as Record<
        string,
        SecuritySchemeObject
      >
      const security = requirements.map((r) =>
        Object.fromEntries(Object.keys(r).map((name) => [name, schemes[name]!])),
      )
      const responses: Plan['responses'] = {}
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const content = (response as { content?: Record<string, { schema?: Schema }> }).content
        responses[status] = Object.fromEntries(
          Object.entries(content ?? {}).map(([type, media]) => [
            type,
            isJson(type) && media.schema ? { check: ajv.compile(media.schema) } : {},
          ]),
        )
      }
      plans.push({
        label: `${method.toUpperCase()} ${path}`,
        method,
        path,
        params,
        ...(bodySchema ? { body: { schema: bodySchema, check: ajv.compile(bodySchema) } } : {}),
        security,
        secured: security.length > 0 && security.every((r) => Object.keys(r).length > 0),
        responses,
      })
    }
  }
  return plans.sort((a, b) => Number(a.method === 'delete') - Number(b.method === 'delete'))
}
