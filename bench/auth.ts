// What token authentication costs, in this process, through `kernel.inject`:
//  1. A JSON route that asks `ctx.identity()` with `Authorization: Bearer <token>` against the same
//     route asked without a credential (anonymous), interleaved over several rounds (medians).
//     Two bearer variants: with the plugin's default 1 s verified-token cache (what a running app
//     does), and with the cache off (`tokenCacheMs: 0`: HS256 verification plus one indexed query
//     per request, on embedded PGlite). Target: cached bearer / anonymous ≥ 0.75.
//  2. Logins per second: `POST /account/login` end to end (lockout read, user read, one scrypt,
//     token row insert), sequential and 8 at a time.
// Run: node --import tsx -C fw-source bench/auth.ts
//      FW_BENCH_MS=<ms> per measurement (default 200), FW_BENCH_ROUNDS rounds (default 7).
import type { Kernel } from 'fw'
import { createTestKernel } from 'fw/testing'
import auth, { type AuthOptions } from 'fw/plugins/auth'
import database from 'fw/plugins/database'
import { interleave } from './lib/measure.js'
import { formatInt, formatRatio } from './lib/stats.js'

const MS = Number(process.env.FW_BENCH_MS ?? 200)
const ROUNDS = Number(process.env.FW_BENCH_ROUNDS ?? 7)
const env = { FW_APP_KEY: 'base64:bench-application-key' }
/** How many logins run at once in the parallel measure, each as its own user. */
const LOGIN_WORKERS = 8

function authOptions(tokenCacheMs: number): AuthOptions {
  return {
    tokenCacheMs,
    seed: async (api, em) => {
      await api.createUser({ username: 'bench', password: 'bench-pass', email: 'b@x.test' }, em)
      // The parallel logins' users: one per worker (attempts on one username in flight together
      // are reserved by the lockout, and all but one would answer 429).
      for (let w = 1; w < LOGIN_WORKERS; w++)
        await api.createUser(
          { username: `bench-${w}`, password: 'bench-pass', email: `b${w}@x.test` },
          em,
        )
      return true
    },
  }
}

async function app(tokenCacheMs: number): Promise<{ kernel: Kernel; token: string }> {
  const kernel = createTestKernel({
    env,
    plugins: [
      [database, { url: 'pglite://memory', entities: [] }],
      [auth, authOptions(tokenCacheMs)],
    ],
  })
  kernel.router.get('me', async (ctx) => {
    const identity = await ctx.identity()
    return { id: identity?.id ?? null, username: identity?.username ?? null }
  })
  await kernel.boot()
  await kernel.plugin('database').prepare()
  const res = await kernel.inject({
    method: 'POST',
    url: '/account/login',
    body: { username: 'bench', password: 'bench-pass' },
  })
  const token = res.json<{ access_token: string }>().access_token
  return { kernel, token }
}

const cached = await app(1000)
const uncached = await app(0)

function loop(kernel: Kernel, headers: Record<string, string>) {
  return async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = await kernel.inject({ url: '/me', headers })
      if (res.status !== 200) throw new Error(`status ${res.status}`)
    }
  }
}

// Sanity: the bearer variants really authenticate, the anonymous one does not.
for (const [name, k, h] of [
  ['cached', cached.kernel, { authorization: `Bearer ${cached.token}` }],
  ['uncached', uncached.kernel, { authorization: `Bearer ${uncached.token}` }],
] as const) {
  const who = (await k.inject({ url: '/me', headers: h })).json<{ username: string | null }>()
  if (who.username !== 'bench') throw new Error(`${name}: bearer did not authenticate`)
}

const result = await interleave(
  {
    anonymous: { body: loop(cached.kernel, {}) },
    bearerCached: { body: loop(cached.kernel, { authorization: `Bearer ${cached.token}` }) },
    bearerUncached: { body: loop(uncached.kernel, { authorization: `Bearer ${uncached.token}` }) },
  },
  { rounds: ROUNDS, ms: MS },
)
const rps = (ns: number) => 1e9 / ns
console.log('JSON route asking ctx.identity(), kernel.inject, medians:')
for (const [name, r] of Object.entries(result))
  console.log(`  ${name.padEnd(15)} ${formatInt(rps(r.median))} req/s  (${formatInt(r.median)} ns)`)
const ratioCached = result.anonymous.median / result.bearerCached.median
const ratioUncached = result.anonymous.median / result.bearerUncached.median
console.log(`  ratio bearer (1 s cache) / anonymous:   ${formatRatio(ratioCached)} (target ≥ 0.75)`)
console.log(`  ratio bearer (no cache) / anonymous:    ${formatRatio(ratioUncached)}`)

// Logins per second: each is one scrypt (~16 MiB, tens of ms) on libuv's pool.
async function logins(kernel: Kernel, n: number, concurrency: number): Promise<number> {
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      const username = w === 0 ? 'bench' : `bench-${w}`
      while (next++ < n) {
        const res = await kernel.inject({
          method: 'POST',
          url: '/account/login',
          body: { username, password: 'bench-pass' },
        })
        if (res.status !== 200) throw new Error(`login status ${res.status}`)
      }
    }),
  )
  return (n * 1000) / (performance.now() - started)
}
const sequential = await logins(cached.kernel, 20, 1)
const parallel = await logins(cached.kernel, 40, LOGIN_WORKERS)
console.log(
  `Logins: ${sequential.toFixed(1)}/s sequential, ${parallel.toFixed(1)}/s ${LOGIN_WORKERS} at a time (one user each)`,
)

await cached.kernel.close()
await uncached.kernel.close()
