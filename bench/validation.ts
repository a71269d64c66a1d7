// What validating a request body by its route's schema costs, in this process, through
// `kernel.inject`: POST a 10-field JSON body to a route whose schema (compiled once, at boot)
// checks it, against the same request to the same handler without a schema, interleaved over
// several rounds (medians). Also the validator alone on the parsed body. Target: < 2 µs/request.
// Run: node --import tsx -C fw-source bench/validation.ts
//      FW_BENCH_MS=<ms> per measurement (default 200), FW_BENCH_ROUNDS rounds (default 9).
import { createRequire } from 'node:module'
import { createKernel, silentLogger, type JsonSchema, type RequestContext } from 'fw'
import { interleave } from './lib/measure.js'
import { formatInt } from './lib/stats.js'

const MS = Number(process.env.FW_BENCH_MS ?? 200)
const ROUNDS = Number(process.env.FW_BENCH_ROUNDS ?? 9)

/** Ten fields of the kinds an API body has: strings with lengths, numbers with ranges, a format. */
const schema: JsonSchema = {
  type: 'object',
  required: ['name', 'sku', 'price', 'stock'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    sku: { type: 'string', minLength: 1, maxLength: 64 },
    price: { type: 'number', minimum: 0 },
    stock: { type: 'integer', minimum: 0 },
    active: { type: 'boolean' },
    tags: { type: 'array', items: { type: 'string' } },
    notes: { type: 'string', nullable: true },
    category_id: { type: 'integer', minimum: 1, nullable: true },
    email: { type: 'string', format: 'email' },
    colour: { type: 'string', enum: ['red', 'green', 'blue'] },
  },
}
const body = JSON.stringify({
  name: 'Desk lamp',
  sku: 'LAMP-01',
  price: 19.5,
  stock: 3,
  active: true,
  tags: ['desk', 'light'],
  notes: null,
  category_id: 2,
  email: 'buyer@example.com',
  colour: 'red',
})

const kernel = createKernel({ logger: silentLogger, config: { development: false } })
const handler = async (ctx: RequestContext) => ({ ok: (await ctx.body<{ sku: string }>()).sku })
kernel.router.post('plain', handler)
kernel.router.post('checked', handler).schema({ body: schema })
await kernel.boot()

const headers = { 'content-type': 'application/json', accept: 'application/json' }
function loop(url: string) {
  return async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await kernel.inject({ method: 'POST', url, headers, body })
      if (res.status !== 200) throw new Error(`${url}: ${res.status} ${res.body.slice(0, 200)}`)
    }
  }
}

// The validator alone, as the kernel compiles it (same options), on the parsed body.
const require = createRequire(import.meta.url)
const Ajv = (
  require('ajv') as { default: new (o: object) => { compile(s: object): (d: unknown) => boolean } }
).default
const addFormats = (require('ajv-formats') as { default: (a: unknown) => unknown }).default
const ajv = new Ajv({
  allErrors: true,
  strictSchema: true,
  strictTypes: false,
  strictRequired: false,
})
;(ajv as unknown as { addVocabulary(k: string[]): void }).addVocabulary(['example'])
addFormats(ajv)
const validate = ajv.compile(schema)
const parsed = JSON.parse(body) as unknown
const alone = async (n: number) => {
  for (let i = 0; i < n; i++) if (!validate(parsed)) throw new Error('the body should be valid')
}

const result = await interleave(
  {
    plain: { body: loop('/plain') },
    checked: { body: loop('/checked') },
    validator: { body: alone },
  },
  { rounds: ROUNDS, ms: MS },
)
await kernel.close()

console.log('POST with a 10-field JSON body, kernel.inject, medians (ns/request):')
for (const [name, r] of Object.entries(result))
  console.log(`  ${name.padEnd(10)} ${formatInt(r.median)} ns`)
const cost = (result.checked.median - result.plain.median) / 1000
console.log(
  `  validation cost per request (checked - plain): ${cost.toFixed(2)} µs (target < 2 µs); the validator alone: ${(result.validator.median / 1000).toFixed(2)} µs`,
)
