// What the uploads plugin costs a request that reads no upload (its `annotate` tap: one WeakMap
// lookup), over HTTP as an app serves it: `fw serve` children of the playground's variants
// (bench/lib/playground-variants.mjs, production, without the database plugins) with and without
// the uploads plugin, loading `GET /_demo/ping` in interleaved rounds (bench/lib/serve-variants.ts).
// Run: node --import tsx -C fw-source bench/uploads-idle.ts   FW_BENCH_UPLOADS_ROUNDS=<n>
//      FW_BENCH_UPLOADS_SECONDS=<seconds per round>
import { compareVariants, NO_DATABASE, roundsFromEnv } from './lib/serve-variants.js'

await compareVariants({
  title: 'uploads (idle)',
  ...roundsFromEnv('FW_BENCH_UPLOADS'),
  variants: [
    { name: 'without', env: { FW_BENCH_SKIP: `${NO_DATABASE},uploads` } },
    { name: 'with uploads', env: { FW_BENCH_SKIP: NO_DATABASE } },
  ],
  ratios: [['with uploads', 'without', 0.98]],
})
