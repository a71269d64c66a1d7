// The fw application the benchmarks load: one JSON route inside a group with a small middleware
// stack, and an `annotate` tap that reads the event log, so a request exercises recording *and* a
// projection of the log, as a production app with a Server-Timing-like header would.
import { createKernel, silentLogger, type Kernel } from 'fw'

/** What both the fw server and the polka baseline answer. */
export const PAYLOAD = { hello: 'world', n: 1 } as const

/** Options of {@link createBenchKernel}. */
export interface BenchKernelOptions {
  /** Tap `annotate` with a projection of the event log (default true). */
  readonly stack?: boolean
  /** Also wrap `/_demo/ping` in a group of three application middleware (default false). */
  readonly middleware?: boolean
}

/**
 * A kernel serving `GET /_demo/ping` (and `GET /ping`, bare) with {@link PAYLOAD}. With `stack` it
 * runs what every fw request runs (maintenance probe, route hook, event log) plus an `annotate` tap
 * that reads the log, as a Server-Timing header would; with `middleware`, three application
 * middleware around the route on top. Its root is a path that holds no `var/MAINTENANCE`, so
 * someone running `fw down` in the working tree cannot turn the benchmark into a 503 benchmark.
 */
export function createBenchKernel(options: BenchKernelOptions = {}): Kernel {
  const kernel = createKernel({ logger: silentLogger, env: {}, root: '/nonexistent/fw-bench' })
  kernel.router.get('ping', () => ({ hello: 'world', n: 1 }))
  if (options.stack === false) return kernel
  kernel.middleware('poweredBy', async function poweredBy(_ctx, next) {
    return (await next()).header('x-powered-by', 'fw')
  })
  kernel.middleware('passThrough', async function passThrough(_ctx, next) {
    return next()
  })
  kernel.middleware('noStore', async function noStore(ctx, next) {
    const reply = await next()
    if (ctx.method === 'GET') reply.header('cache-control', 'no-store')
    return reply
  })
  const middleware = options.middleware === true ? ['poweredBy', 'passThrough', 'noStore'] : []
  kernel.router.group({ middleware }, (r) => {
    r.get('_demo/ping', () => ({ hello: 'world', n: 1 }))
  })
  // A projection: how many framework phases the request went through, from its log.
  kernel.hooks.annotate.tapPromise('phase-count', async (reply, ctx) => {
    let phases = 0
    for (const event of ctx.log.all()) if (event.type === 'phase.completed') phases++
    reply.header('x-fw-phases', String(phases))
  })
  return kernel
}
