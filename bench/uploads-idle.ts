// What the uploads plugin costs a request that reads no upload (its `annotate` tap: one WeakMap
// lookup), over HTTP as an app serves it: `fw serve` children of the playground's variants
// (bench/lib/playground-variants.mjs, production, without the database plugins) with and without
// the uploads plugin, loading `GET /_demo/ping` in interleaved rounds (bench/lib/serve-variants.ts).
// Run: node --import tsx -C fw-source bench/uploads-idle.ts   FW_BENCH_UPLOADS_ROUNDS=<n>
//      FW_BENCH_UPLOADS_SECONDS=<seconds per round>
import { compareVariants } from './lib/serve-variants.js'

const NO_DATABASE = 'database,auth,api,list,playground'
await compareVariants({
  title: 'uploads (idle)',
  rounds: Number(process.env.FW_BENCH_UPLOADS_ROUNDS ?? 5),
  seconds: Number(process.env.FW_BENCH_UPLOADS_SECONDS ?? 3),
  variants: [
    { name: 'without', env: { FW_BENCH_SKIP: `${NO_DATABASE},uploads` } },
    { name: 'with uploads', env: { FW_BENCH_SKIP: NO_DATABASE } },
  ],
  ratios: [['with uploads', 'without', 0.98]],
})
