// A Fastify 5 server answering GET /_demo/ping with the benchmarks' JSON, configured as its users
// configure it: @fastify/cookie with a secret (signed cookies), @fastify/cors (`origin: '*'`, the
// plugin's own default spelled out) and @fastify/request-context with defaultStoreValues (an
// AsyncLocalStorage store per request). The route uses none of them, like the playground's ping.
// `FW_BENCH_FASTIFY_SKIP=cookie,cors,request-context` (any of them) leaves plugins out: the
// ablation of bench/playground-http.ts, and with all three the bare Fastify baseline. Logger off,
// no response schema (the route returns an object, serialised by JSON.stringify as the others do).
// Started by bench/playground-http.ts as a child process (bundled with esbuild when fw runs built).
import fastifyCookie from '@fastify/cookie'
import fastifyCors from '@fastify/cors'
import fastifyRequestContext from '@fastify/request-context'
import Fastify from 'fastify'
import type { AddressInfo } from 'node:net'
import { announce } from './server-ipc.js'

/** The plugins this server can register, by the name FW_BENCH_FASTIFY_SKIP uses. */
const FASTIFY_PLUGINS = ['cookie', 'cors', 'request-context'] as const
type PluginName = (typeof FASTIFY_PLUGINS)[number]

declare module '@fastify/request-context' {
  interface RequestContextData {
    user: { id: string }
    requestStart: number
  }
}

const skip = new Set(
  (process.env.FW_BENCH_FASTIFY_SKIP ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== ''),
)
for (const name of skip) {
  if (!(FASTIFY_PLUGINS as readonly string[]).includes(name)) {
    throw new Error(
      `FW_BENCH_FASTIFY_SKIP: no plugin '${name}' (there are ${FASTIFY_PLUGINS.join(', ')})`,
    )
  }
}
const uses = (name: PluginName): boolean => !skip.has(name)

const app = Fastify({ logger: false })
if (uses('cookie')) {
  await app.register(fastifyCookie, {
    secret: 'fw-bench-cookie-secret-0123456789abcdef',
    parseOptions: { httpOnly: true, sameSite: 'lax', path: '/' },
  })
}
if (uses('cors')) await app.register(fastifyCors, { origin: '*' })
if (uses('request-context')) {
  await app.register(fastifyRequestContext, {
    defaultStoreValues: { user: { id: 'anonymous' }, requestStart: 0 },
  })
}
app.get('/_demo/ping', async () => ({ hello: 'world', n: 1 }))
await app.listen({ port: 0, host: '127.0.0.1' })
announce((app.server.address() as AddressInfo).port, () => void app.close())
