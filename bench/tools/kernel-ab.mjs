// The kernel's request cycle alone, this tree's build against another checkout's build, in one
// process (each tree's dist/ loaded as its own module graph), by CPU time per request: what the
// `fw serve` A/B (bench/before-after.ts) cannot resolve on a loaded machine, where the network,
// PostgreSQL and the load generator scatter the figure by ± 15%. Two routes through
// `kernel.handle()`, with a synchronous `request` tap and an `annotate` tap, in the request
// scope as the playground runs: `ping` (a synchronous handler: no promise) and `product` (an
// async middleware, a binding whose loader waits, an async handler: the products route's shape
// without the database). Interleaved rounds, medians. Not part of `npm run bench`.
// Run: npm run build (here and in the other checkout), then
//      node bench/tools/kernel-ab.mjs <other checkout> [rounds 15] [ms per round 300]
// Instructions instead of CPU time (what the load of the machine does not move): one tree, one
// route, `n` requests after 20,000 untimed ones, in a process of its own; run it under callgrind
// with two `n` and divide the difference of the totals by the difference of the `n`:
//      valgrind --tool=callgrind node --single-threaded --predictable-gc-schedule \
//        bench/tools/kernel-ab.mjs --count <checkout> <url> <n>
import { resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'

const counting = process.argv[2] === '--count'
const [base, rounds = '15', ms = '300'] = process.argv.slice(counting ? 3 : 2)
if (base === undefined) {
  console.error('usage: node bench/tools/kernel-ab.mjs <other checkout> [rounds] [ms]')
  process.exit(2)
}
const here = resolve(new URL('../..', import.meta.url).pathname)

/** A kernel of one tree, booted, with the two routes. */
async function kernelOf(checkout) {
  const fw = await import(pathToFileURL(resolve(checkout, 'dist/kernel/index.js')).href)
  const kernel = fw.createKernel({ logger: fw.silentLogger, env: {}, root: '/nonexistent/fw-ab' })
  kernel.useRequestScope()
  kernel.hooks.request.tap({ name: 'noop', stage: -10 }, () => undefined)
  kernel.hooks.annotate.tap('request-id', (reply) => {
    reply.header('x-request-id', 'r')
  })
  kernel.middleware('api', async function api(_ctx, next) {
    return (await next()).header('x-api', '1')
  })
  kernel.binding('Product', async (id) => ({ id: Number(id), name: 'p' }))
  kernel.router.get('_demo/ping', () => ({ hello: 'world', n: 1 }))
  kernel.router.group({ middleware: ['api'] }, (r) => {
    r.get('products/{product}', async (ctx) => ctx.models.product).bind('product', 'Product')
  })
  await kernel.boot()
  return kernel
}

const init = (url) => ({
  method: 'GET',
  url,
  headers: { host: 'localhost' },
  body: undefined,
  secure: false,
  ip: '127.0.0.1',
})
const ring = new Array(256)
if (counting) {
  const kernel = await kernelOf(base)
  const request = init(rounds)
  for (let i = 0; i < 20_000 + Number(ms); i++) ring[i & 255] = await kernel.handle(request)
  await kernel.close()
  process.exit(0)
}
const trees = { before: await kernelOf(base), after: await kernelOf(here) }

/** CPU µs per request of `count` sequential requests. */
async function cpuPerRequest(kernel, url, until) {
  const request = init(url)
  const started = process.cpuUsage()
  let n = 0
  while (performance.now() < until) {
    for (let i = 0; i < 256; i++) ring[i] = await kernel.handle(request)
    n += 256
  }
  const used = process.cpuUsage(started)
  return (used.user + used.system) / n
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1]
for (const url of ['/_demo/ping', '/products/7']) {
  for (const kernel of Object.values(trees)) {
    const res = await kernel.inject(url)
    if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${res.body}`)
  }
  const runs = { before: [], after: [] }
  for (let round = 0; round < Number(rounds); round++) {
    const order = round % 2 === 0 ? ['before', 'after'] : ['after', 'before']
    for (const name of order) {
      await cpuPerRequest(trees[name], url, performance.now() + 50) // warm-up after the switch
      runs[name].push(await cpuPerRequest(trees[name], url, performance.now() + Number(ms)))
    }
  }
  const [b, a] = [median(runs.before), median(runs.after)]
  const ratios = runs.before.map((x, i) => x / runs.after[i])
  console.log(
    `kernel-ab ${url}: before ${b.toFixed(3)} µs CPU/req, after ${a.toFixed(3)}: after/before ` +
      `${(b / a).toFixed(3)} (median of per-round ratios ${median(ratios).toFixed(3)}, ` +
      `${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)}), ${rounds} rounds of ${ms} ms`,
  )
}
for (const kernel of Object.values(trees)) await kernel.close()
