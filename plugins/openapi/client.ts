// `fw create:api-client`: a fetch-based module with one function per operation of an OpenAPI
// document, and its type declarations (docs/openapi.md "The client").
import type {
  OpenAPIObject,
  OperationObject,
  ParameterObject,
  PathItemObject,
  ReferenceObject,
  RequestBodyObject,
  ResponseObject,
  SchemaObject,
} from 'openapi3-ts/oas30'

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'patch'] as const

/** One operation, as the client exposes it. */
interface ClientOperation {
  readonly fn: string
  readonly method: string
  readonly path: string
  readonly summary: string | undefined
  readonly pathParams: readonly ParameterObject[]
  readonly queryParams: readonly ParameterObject[]
  readonly body: SchemaObject | ReferenceObject | undefined
  readonly bodyRequired: boolean
  /** The body is `multipart/form-data`: sent as `FormData`, its files as `Blob`s. */
  readonly multipart: boolean
  readonly response: SchemaObject | ReferenceObject | undefined
}

const RESERVED = new Set(['configure', 'ApiError', 'request', 'delete', 'new', 'class', 'function'])

/** `v1.products.show` → `v1ProductsShow`, a valid identifier not taken yet. */
function functionName(operationId: string, taken: Set<string>): string {
  const words = operationId.split(/[^A-Za-z0-9]+/).filter(Boolean)
  let name = words
    .map((w, i) => (i === 0 ? w[0]!.toLowerCase() + w.slice(1) : w[0]!.toUpperCase() + w.slice(1)))
    .join('')
  if (name === '' || /^\d/.test(name) || RESERVED.has(name))
    name = `op${name[0]?.toUpperCase() ?? ''}${name.slice(1)}`
  let unique = name
  for (let i = 2; taken.has(unique); i++) unique = `${name}${i}`
  taken.add(unique)
  return unique
}

function isRef(value: unknown): value is ReferenceObject {
  return typeof value === 'object' && value !== null && '$ref' in value
}

function resolveRef<T>(doc: OpenAPIObject, value: T | ReferenceObject): T | undefined {
  if (!isRef(value)) return value
  let at: unknown = doc
  for (const part of value.$ref.replace(/^#\//, '').split('/'))
    at = (at as Record<string, unknown> | undefined)?.[
      part.replaceAll('~1', '/').replaceAll('~0', '~')
    ]
  return at as T | undefined
}

/** The TypeScript type of a schema; `any` where the document says nothing usable. */
export function typeOf(
  doc: OpenAPIObject,
  input: SchemaObject | ReferenceObject | undefined,
  depth = 0,
): string {
  const schema = input === undefined ? undefined : resolveRef<SchemaObject>(doc, input)
  if (schema === undefined || depth > 8) return 'any'
  const nullable = schema.nullable === true ? ' | null' : ''
  if (schema.enum !== undefined)
    return schema.enum.map((v) => JSON.stringify(v)).join(' | ') + nullable
  const alternatives = schema.oneOf ?? schema.anyOf
  if (alternatives !== undefined)
    return `(${alternatives.map((s) => typeOf(doc, s, depth + 1)).join(' | ')})${nullable}`
  if (schema.allOf !== undefined)
    return `(${schema.allOf.map((s) => typeOf(doc, s, depth + 1)).join(' & ')})${nullable}`
  switch (schema.type) {
    case 'string':
      // A file of a multipart body: a `File` or any `Blob`.
      return schema.format === 'binary' ? `Blob${nullable}` : `string${nullable}`
    case 'integer':
    case 'number':
      return `number${nullable}`
    case 'boolean':
      return `boolean${nullable}`
    case 'array':
      return `Array<${typeOf(doc, schema.items, depth + 1)}>${nullable}`
    case 'object':
    case undefined: {
      if (schema.properties === undefined) {
        const values = schema.additionalProperties
        if (typeof values === 'object')
          return `Record<string, ${typeOf(doc, values, depth + 1)}>${nullable}`
        return schema.type === 'object' ? `Record<string, any>${nullable}` : 'any'
      }
      const required = new Set<string>(schema.required ?? [])
      const fields = Object.entries(schema.properties).map(
        ([name, value]) =>
          `${key(name)}${required.has(name) ? '' : '?'}: ${typeOf(doc, value, depth + 1)}`,
      )
      return `{ ${fields.join('; ')} }${nullable}`
    }
    default:
      return 'any'
  }
}

function operationsOf(doc: OpenAPIObject): ClientOperation[] {
  const taken = new Set<string>()
  const out: ClientOperation[] = []
  for (const [path, raw] of Object.entries(doc.paths ?? {})) {
    const item = resolveRef<PathItemObject>(doc, raw as PathItemObject) ?? {}
    for (const method of METHODS) {
      const op = item[method] as OperationObject | undefined
      if (op === undefined) continue
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])]
        .map((p) => resolveRef<ParameterObject>(doc, p))
        .filter((p): p is ParameterObject => p !== undefined)
      const body =
        op.requestBody === undefined
          ? undefined
          : resolveRef<RequestBodyObject>(doc, op.requestBody)
      const success = Object.entries(op.responses ?? {})
        .filter(([status]) => /^2\d\d$/.test(status))
        .map(([, r]) => resolveRef<ResponseObject>(doc, r as ResponseObject))[0]
      out.push({
        fn: functionName(op.operationId ?? `${method} ${path}`, taken),
        method: method.toUpperCase(),
        path,
        summary: op.summary,
        pathParams: params.filter((p) => p.in === 'path'),
        queryParams: params.filter((p) => p.in === 'query'),
        body: (body?.content?.['application/json'] ?? body?.content?.['multipart/form-data'])
          ?.schema,
        bodyRequired: body?.required === true,
        multipart: body?.content?.['multipart/form-data'] !== undefined,
        response: success?.content?.['application/json']?.schema,
      })
    }
  }
  return out
}

const RUNTIME = `// Generated by \`fw create:api-client\` from an OpenAPI document: do not edit, it is overwritten.
const settings = { baseUrl: undefined, headers: {}, fetch: undefined }

/**
 * Sets the base URL (default: the API prefix the server puts into the page, in
 * \`<meta name="fw-api-prefix">\`; else the page's origin), headers sent with every call, a fetch.
 */
export function configure(options = {}) {
  if (options.baseUrl !== undefined) settings.baseUrl = options.baseUrl.replace(/\\/$/, '')
  if (options.headers !== undefined) settings.headers = { ...options.headers }
  if (options.fetch !== undefined) settings.fetch = options.fetch
}

/** The injected API prefix of the page (\`/api/v1\`), or '' outside a page that has one. */
function injectedPrefix() {
  const meta = globalThis.document?.querySelector?.('meta[name="fw-api-prefix"]')
  return (meta?.getAttribute('content') ?? '').replace(/\\/+$/, '')
}

/**
 * Where a path goes: after the configured base URL; without one, under the injected prefix
 * (\`/products\` → \`/api/v1/products\`), unless the path is already rooted where the prefix is
 * (\`/api/v2/products\` keeps its own version).
 */
function target(path) {
  if (settings.baseUrl !== undefined) return settings.baseUrl + path
  const prefix = injectedPrefix()
  const root = /^\\/[^/]+/.exec(prefix)?.[0]
  return root === undefined || path === root || path.startsWith(\`\${root}/\`) ? path : prefix + path
}

/** A response outside 2xx: its status and parsed body. */
export class ApiError extends Error {
  constructor(status, body) {
    super(\`HTTP \${status}\${body && typeof body === 'object' && typeof body.error === 'string' ? \`: \${body.error}\` : ''}\`)
    this.name = 'ApiError'
    this.status = status
    this.body = body
  }
}

/**
 * A query value in the document's deepObject style: an object or array in brackets
 * (\`order[0][column]=0\`), a scalar as text; undefined and null are left out.
 */
function appendQuery(query, key, value) {
  if (value === undefined || value === null) return
  if (typeof value !== 'object') return query.append(key, String(value))
  for (const [name, item] of Object.entries(value)) appendQuery(query, \`\${key}[\${name}]\`, item)
}

/**
 * A multipart body as FormData: a Blob (a File) as a file part, named by its \`name\` when it has
 * one; an array as one part per item; anything else as text. undefined and null are left out.
 */
function formOf(body) {
  const form = new FormData()
  const add = (key, value) => {
    if (value === undefined || value === null) return
    if (value instanceof Blob) form.append(key, value, typeof value.name === 'string' ? value.name : key)
    else form.append(key, typeof value === 'object' ? JSON.stringify(value) : String(value))
  }
  for (const [key, value] of Object.entries(body)) {
    if (Array.isArray(value)) value.forEach((item) => add(key, item))
    else add(key, value)
  }
  return form
}

async function request(method, template, args, init, multipart) {
  const values = args ?? {}
  const path = template.replace(/\\{(\\w+)\\}/g, (_, name) => encodeURIComponent(String(values[name])))
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(values.query ?? {})) appendQuery(query, key, value)
  const search = query.toString()
  const headers = { accept: 'application/json', ...settings.headers, ...(init?.headers ?? {}) }
  const hasBody = values.body !== undefined
  // FormData sets its own content type, boundary included.
  if (hasBody && !multipart) headers['content-type'] = 'application/json'
  const send = settings.fetch ?? globalThis.fetch
  const res = await send(target(path) + (search ? \`?\${search}\` : ''), {
    method,
    headers,
    body: hasBody ? (multipart ? formOf(values.body) : JSON.stringify(values.body)) : undefined,
    signal: init?.signal,
    credentials: 'same-origin',
  })
  const text = await res.text()
  let body = undefined
  if (text !== '') {
    try {
      body = JSON.parse(text)
    } catch {
      body = text
    }
  }
  if (!res.ok) throw new ApiError(res.status, body)
  return body
}
`

const DECLARATIONS = `// Generated by \`fw create:api-client\` from an OpenAPI document: do not edit, it is overwritten.
export interface ClientOptions {
  /**
   * Prepended to every path (\`http://127.0.0.1:3000\`); default: the page's injected API prefix
   * (\`<meta name="fw-api-prefix">\`, unless the path already starts where it does), else none.
   */
  baseUrl?: string
  /** Headers sent with every call (\`{ apiKey: '…' }\`, \`{ authorization: 'Bearer …' }\`). */
  headers?: Record<string, string>
  /** The fetch to use; default: the global one. */
  fetch?: typeof fetch
}
/** Per call: more headers, an abort signal. */
export interface CallOptions {
  headers?: Record<string, string>
  signal?: AbortSignal
}
export declare function configure(options?: ClientOptions): void
/** A response outside 2xx: its status and parsed body. */
export declare class ApiError extends Error {
  readonly status: number
  readonly body: any
}
`

/** A property name as TypeScript writes it: bare when it can be. */
const key = (name: string): string =>
  /^[A-Za-z_$][\w$]*$/.test(name) ? name : JSON.stringify(name)

function argsType(doc: OpenAPIObject, op: ClientOperation): { type: string; optional: boolean } {
  const fields: string[] = op.pathParams.map(
    (p) => `${key(p.name)}: ${typeOf(doc, p.schema) === 'number' ? 'number' : 'string | number'}`,
  )
  if (op.queryParams.length > 0) {
    const query = op.queryParams.map(
      (p) => `${key(p.name)}${p.required ? '' : '?'}: ${typeOf(doc, p.schema)}`,
    )
    fields.push(
      `query${op.queryParams.some((p) => p.required) ? '' : '?'}: { ${query.join('; ')} }`,
    )
  } else fields.push('query?: Record<string, string | number | boolean | undefined>')
  if (op.body !== undefined)
    fields.push(`body${op.bodyRequired ? '' : '?'}: ${typeOf(doc, op.body)}`)
  const optional = op.pathParams.length === 0 && !(op.body !== undefined && op.bodyRequired)
  return { type: `{ ${fields.join('; ')} }`, optional }
}

/** The two files of the client: `api-client.js` and `api-client.d.ts`. */
export function renderClient(doc: OpenAPIObject): { js: string; dts: string; operations: number } {
  const ops = operationsOf(doc)
  let js = RUNTIME
  let dts = DECLARATIONS
  for (const op of ops) {
    const doc1 = op.summary === undefined ? '' : `/** ${op.summary.replaceAll('*/', '* /')} */\n`
    js += `\n${doc1}export function ${op.fn}(args, init) {\n  return request(${JSON.stringify(op.method)}, ${JSON.stringify(op.path)}, args, init${op.multipart ? ', true' : ''})\n}\n`
    const { type, optional } = argsType(doc, op)
    dts += `\n${doc1}export declare function ${op.fn}(args${optional ? '?' : ''}: ${type}, init?: CallOptions): Promise<${typeOf(doc, op.response)}>\n`
  }
  return { js, dts, operations: ops.length }
}
