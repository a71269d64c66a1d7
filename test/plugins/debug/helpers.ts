// Shared by the debug suites: a test kernel with the debug plugin and a few routes of every kind.
import { createHmac } from 'node:crypto'
import { createTestKernel } from 'fw/testing'
import { empty, html, json, redirect, text, type Kernel, type RequestContext } from 'fw'
import debug, { type DebugOptions } from 'fw/plugins/debug'

export const KEY = 'test-app-key-0123456789abcdef0123456789'
export const PAGE =
  '<!doctype html><html><head><title>t</title></head><body><h1>Hi</h1></body></html>'

export interface DebugKernelOptions {
  development?: boolean
  key?: string | undefined
  features?: string[]
  options?: DebugOptions
  debugTokenSecret?: string
  trustProxy?: boolean
  /** `api.prefix`, for a test that registers the api plugin. */
  apiPrefix?: string
}

/** A kernel in development (or production) with the debug plugin and routes of every body kind. */
export function debugKernel(o: DebugKernelOptions = {}): Kernel {
  const key = 'key' in o ? o.key : KEY
  const kernel = createTestKernel({
    config: {
      app: { name: 'dbg', key },
      development: o.development ?? true,
      features: o.features ?? ['debug', 'DevPanel'],
      debug_token_secret: o.debugTokenSecret,
      http: { trust_proxy: o.trustProxy ?? false },
      ...(o.apiPrefix === undefined ? {} : { api: { prefix: o.apiPrefix } }),
    },
  })
  kernel.register(debug, o.options)
  const r = kernel.router
  r.get('obj', () => ({ a: 1 })).name('obj')
  r.get('arr', () => [1, 2])
  r.get('str', () => text('plain'))
  r.get('page', () => html(PAGE))
  r.get('upper', () => html('<html><BODY><p>x</p></BODY><p>tail</p></Body ></html>'))
  r.get('fragment', () => html('<p>fragment</p>'))
  r.get('has-debug', () => ({ _debug: 'mine', b: 2 }))
  r.get('none', () => empty())
  r.get('go', () => redirect('/obj'))
  r.get('boom', () => {
    throw new Error('secret failure message')
  })
  r.get('id', (ctx: RequestContext) => ({ id: ctx.state.requestId ?? null }))
  r.get('hostile/{name}', (ctx: RequestContext) => {
    ;(ctx.state as Record<string, unknown>).session = {
      note: '</script><script>alert(1)</script><!--',
      line: 'a\u2028b',
      password: 'hunter2',
    }
    return html(PAGE)
  })
  r.get('nonce', (ctx: RequestContext) => {
    ctx.state.cspNonce = 'n0nce"x'
    return html(PAGE)
  })
  r.get('echo', () => json({ ok: true }))
  return kernel
}

/** A grant token signed like `fw debug:token` does, for any expiry. */
export function tokenFor(expires: number, secret = KEY): string {
  return `${expires}.${createHmac('sha256', secret).update(String(expires)).digest('hex')}`
}

export const nowSeconds = (): number => Math.floor(Date.now() / 1000)

/** The `Set-Cookie` values of a response, as an array. */
export function setCookies(headers: Record<string, unknown>): string[] {
  const v = headers['set-cookie']
  return v === undefined ? [] : Array.isArray(v) ? (v as string[]) : [String(v)]
}

/** The island's JSON text in a page, or undefined. */
export function islandOf(body: string): string | undefined {
  const m = /<script type="application\/json" id="fw-debug-data" hidden>([\s\S]*?)<\/script>/.exec(
    body,
  )
  return m?.[1]
}
