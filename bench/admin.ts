// What the admin plugin costs a request outside the area (target ≥ 0.98), over HTTP as an app
// serves it: `fw serve` children (production, the playground's plugins without the database ones)
// of the same app (bench/lib/playground-variants.mjs), with the area on (`admin.prefix: "admin"`,
// the playground's theme, floor and default controller) and without the admin plugin, loading
// `GET /_demo/ping` in interleaved rounds (bench/lib/serve-variants.ts).
// Inside the area, the floor costs one identity lookup per request (test/plugins/admin counts it).
// Run: node --import tsx -C fw-source bench/admin.ts   FW_BENCH_ADMIN_ROUNDS=<n>
//      FW_BENCH_ADMIN_SECONDS=<seconds per round>
import { compareVariants, NO_DATABASE, roundsFromEnv } from './lib/serve-variants.js'

await compareVariants({
  title: 'admin',
  ...roundsFromEnv('FW_BENCH_ADMIN'),
  variants: [
    { name: 'without', env: { FW_BENCH_SKIP: `${NO_DATABASE},admin` } },
    {
      name: 'area on',
      env: { FW_BENCH_SKIP: NO_DATABASE, FW_CONFIG: '{"admin":{"prefix":"admin"}}' },
    },
  ],
  ratios: [['area on', 'without', 0.98]],
})
