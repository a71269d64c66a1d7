// The schema-driven fuzz over the playground's API document (test/fuzz/harness.ts): every
// operation with generated valid and invalid inputs, the application's API key or an editor's
// bearer token where the operation names one, and without or with forged credentials. On PGlite,
// or on PostgreSQL with DATABASE_URL. FW_FUZZ_RUNS, FW_FUZZ_SEED and FW_FUZZ_OPS: CONTRIBUTING.md.
import fc from 'fast-check'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { type TestDatabase } from 'fw/plugins/database'
import { fuzz, fuzzSettings, report } from './harness.js'
import { hostileString } from './inputs.js'
import type { Param, Plan } from './plan.js'
import { bootApp, playground, tokenOf } from '../fixtures/booted-app.js'

/** The list's whitelist (playground/README.md), names it does not know, and malformed ones. */
const FIELD = fc.constantFrom(
  ...'id name sku price stock active tags notes category_id created_at title'.split(' '),
  ...'categories.title products.name password Name 1x a.b.c'.split(' '),
)
/** The list's operators, in either case, and some it does not have. */
const OP = fc.constantFrom(
  ...'= != <> < > <= >= LIKE ilike IN ~ ;'.split(' '),
  ...['NOT IN', 'IS NULL', 'is not null', ''],
)
const SCALAR = fc.oneof(hostileString, fc.integer(), fc.double(), fc.boolean(), fc.constant(null))
const CONDITION = fc.record({
  field: FIELD,
  op: OP,
  value: fc.oneof(SCALAR, fc.array(SCALAR, { maxLength: 4 })),
})

/**
 * Values in the list engine's query language (plugins/list/README.md), which the document only
 * describes in words: field lists, sort keys, JSON filters and searches, DataTables' nested keys.
 */
function listValues(plan: Plan, param: Param): fc.Arbitrary<unknown> | undefined {
  const table = plan.path.endsWith('/datatable')
  if (table && param.name === 'order')
    return fc.array(
      fc.record({
        column: fc.oneof(fc.nat(6), hostileString),
        dir: fc.constantFrom('asc', 'desc', 'up', ''),
      }),
      { maxLength: 2 },
    )
  if (table && param.name === 'columns')
    return fc.array(fc.record({ data: FIELD, orderable: fc.constantFrom('true', 'false') }), {
      maxLength: 4,
    })
  if (table && param.name === 'search') return fc.record({ value: hostileString })
  if (param.name === 'fields')
    return fc
      .array(FIELD, { maxLength: 4 })
      .chain((f) => fc.constantFrom(f.join(','), JSON.stringify(f)))
  if (param.name === 'order')
    return fc
      .array(fc.tuple(fc.constantFrom('', '-'), FIELD), { maxLength: 3 })
      .map((keys) => keys.map(([d, f]) => d + f).join(','))
  if (param.name === 'filter')
    return fc
      .array(fc.oneof(CONDITION, fc.record({ or: fc.array(CONDITION, { maxLength: 2 }) })), {
        maxLength: 3,
      })
      .map((f) => JSON.stringify(f))
  if (param.name === 'search')
    return fc.oneof(
      hostileString,
      fc.dictionary(FIELD, hostileString, { maxKeys: 2 }).map((s) => JSON.stringify(s)),
    )
  return undefined
}

const test = suite<{ db: TestDatabase; kernel: Kernel }>('fuzz: the playground API', {} as never)

bootApp(test, playground({ FW_APP_KEY: 'base64:fuzz-test-application-key' }))

test('every operation answers generated requests as the document says', async ({ kernel }) => {
  const token = await tokenOf(kernel, 'editor')
  const secrets: Record<string, string> = { apiKey: 'demo-api-key', bearerAuth: token }
  const settings = fuzzSettings()
  const findings = await fuzz(
    {
      kernel,
      document: await kernel.plugin('openapi').document(),
      secret: (scheme) => secrets[scheme] ?? '',
      // Seeded products (1,000 of them): reads and writes of records that exist.
      known: { id: ['1', '2', '3', '17', '999'] },
      values: listValues,
    },
    settings,
  )
  assert.ok(findings.length === 0, report('playground', findings, settings))
})

test.run()
