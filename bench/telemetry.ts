// What the telemetry plugin costs a request, over HTTP as an app serves it: `fw serve` children
// (production, the playground's plugins without the database ones, so no PGlite) of the same app
// (bench/lib/playground-variants.mjs):
//   - without the telemetry plugin (the baseline),
//   - with it registered and no tracer provider (target ≥ 0.98: it taps nothing),
//   - with it and OpenTelemetry's SDK: a BasicTracerProvider with a BatchSpanProcessor whose
//     exporter drops each batch (the SDK's and the projection's cost, not a collector's network;
//     target ≥ 0.85); also without phase spans (`phaseSpans: false`) and with 10% of the traces
//     sampled (TraceIdRatioBasedSampler), as a busy production app would run it,
//   - with its `exporter` option instead (fw builds the span records itself after the response and
//     hands them in batches to the same dropping exporter, a standard `SpanExporter`: the
//     targets ≥ 0.85 on the ping, ≥ 0.92 on products), every span and 10% of the traces,
//   - with its Prometheus metrics on (`FW_METRICS=true`) and no tracer provider (no target:
//     the request's duration histogram, the in-flight gauge),
// loading `GET /_demo/ping` in interleaved rounds (bench/lib/serve-variants.ts), by server CPU
// time per request; or, with `--instructions`, by the instructions callgrind counts per request
// (bench/lib/served-instructions.ts: steady where CPU time scatters, but it cannot see what memory
// and caches cost, so it is a second figure, not a replacement).
// With `--products`, the same on `GET /api/v1/products/{id}` (the whole playground on a PostgreSQL
// database of its own, bench/lib/product-load.ts): a route that does work, one statement.
// Run: node --import tsx -C fw-source bench/telemetry.ts [--instructions | --products]
//      FW_BENCH_TELEMETRY_ROUNDS=<n>  FW_BENCH_TELEMETRY_SECONDS=<seconds per round>
//      FW_BENCH_TELEMETRY_VARIANTS=<names, comma-separated: only those (and `without`)>
//      FW_BENCH_NODE_ARGS=<node options for every child>
import { fwCommand } from './lib/playground-child.js'
import { productsRoute, seededDatabase } from './lib/product-load.js'
import { compareInstructions } from './lib/served-instructions.js'
import {
  compareVariants,
  NO_DATABASE,
  type ServedVariant,
  type VariantRatio,
} from './lib/serve-variants.js'

const variants: ServedVariant[] = [
  { name: 'without', env: { FW_BENCH_SKIP: `${NO_DATABASE},telemetry` } },
  { name: 'no provider', env: { FW_BENCH_SKIP: NO_DATABASE } },
  { name: 'sdk + batch', env: { FW_BENCH_SKIP: NO_DATABASE, FW_BENCH_TRACES: 'batch' } },
  {
    name: 'no phases',
    env: { FW_BENCH_SKIP: NO_DATABASE, FW_BENCH_TRACES: 'batch,no-phases' },
  },
  {
    name: '10% sampled',
    env: { FW_BENCH_SKIP: NO_DATABASE, FW_BENCH_TRACES: 'batch,sampled' },
  },
  { name: 'records', env: { FW_BENCH_SKIP: NO_DATABASE, FW_BENCH_TRACES: 'records' } },
  {
    name: 'records 10%',
    env: { FW_BENCH_SKIP: NO_DATABASE, FW_BENCH_TRACES: 'records,sampled' },
  },
  { name: 'metrics', env: { FW_BENCH_SKIP: NO_DATABASE, FW_METRICS: 'true' } },
]
const products = process.argv.includes('--products')
const ratios: VariantRatio[] = [
  ['no provider', 'without', 0.98],
  ['sdk + batch', 'without', 0.85],
  ['no phases', 'without', 0.85],
  ['10% sampled', 'without', 0.85],
  ['records', 'without', products ? 0.92 : 0.85],
  ['records 10%', 'without'],
  ['metrics', 'without'],
]
const only = process.env.FW_BENCH_TELEMETRY_VARIANTS?.split(',').map((name) => name.trim())
const chosen = (name: string) => only === undefined || name === 'without' || only.includes(name)

const rounds = Number(process.env.FW_BENCH_TELEMETRY_ROUNDS ?? 5)
const seconds = Number(process.env.FW_BENCH_TELEMETRY_SECONDS ?? 3)
if (products) {
  const db = await seededDatabase(fwCommand())
  try {
    // The whole playground (its database plugins too), without "no provider": the ping has it.
    await compareVariants({
      title: 'telemetry',
      rounds,
      seconds,
      route: productsRoute(),
      variants: variants
        .filter((v) => v.name !== 'no provider' && chosen(v.name))
        .map(({ name, env }) => ({
          name,
          env: {
            ...env,
            FW_BENCH_SKIP: name === 'without' ? 'telemetry' : '',
            DATABASE_URL: db.url,
          },
        })),
      ratios: ratios.filter(([name]) => name !== 'no provider' && chosen(name)),
    })
  } finally {
    await db.drop()
  }
} else if (process.argv.includes('--instructions')) {
  await compareInstructions({
    title: 'telemetry',
    variants: variants.filter((v) => chosen(v.name)),
    ratios: ratios.filter(([name]) => chosen(name)),
    small: 10_000,
    large: 30_000,
  })
} else {
  await compareVariants({
    title: 'telemetry',
    rounds,
    seconds,
    variants: variants.filter((v) => chosen(v.name)),
    ratios: ratios.filter(([name]) => chosen(name)),
  })
}
