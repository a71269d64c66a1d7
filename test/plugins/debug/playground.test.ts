import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { createTestDatabase, type TestDatabase } from 'fw/plugins/database'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../../../playground/app.js'
import { signIn } from '../api/fixtures.js'

const KEY = 'playground-debug-test-key-0123456789abcdef'
const test = suite<{ db: TestDatabase; dev: Kernel; prod: Kernel }>('debug: on the playground')

test.before(async (context) => {
  context.db = await createTestDatabase()
  const env = { DATABASE_URL: context.db.url, FW_APP_KEY: KEY }
  context.dev = createApp({ env, logger: createMemoryLogger() })
  context.prod = createApp({
    env: { ...env, NODE_ENV: 'production' },
    logger: createMemoryLogger(),
  })
  await context.dev.boot()
  await context.dev.plugin('database').prepare()
  await context.prod.boot()
})

test.after(async ({ dev, prod, db }) => {
  await dev.close()
  await prod.close()
  await db.drop()
})

test("a login's debug payload holds neither the password nor the issued token", async ({ dev }) => {
  const res = await dev.inject({
    method: 'POST',
    url: '/account/login',
    headers: { accept: 'application/json' },
    body: { username: 'admin', password: 'admin-pass' },
  })
  assert.is(res.status, 200)
  const body = res.json<{ access_token: string; _debug: Record<string, unknown> }>()
  const token = body.access_token
  assert.ok(token.length > 20)
  const payload = JSON.stringify(body._debug)
  assert.not.ok(payload.includes('admin-pass'), 'the password')
  assert.not.ok(payload.includes(token), 'the token')
  assert.not.ok(payload.includes(token.split('.')[2]!), 'the signature')
  const auth = body._debug.auth as {
    user: { username: string }
    action: string
    claims: Record<string, unknown>
  }
  assert.is(auth.user.username, 'admin')
  assert.is(auth.action, 'login')
  assert.equal((body._debug.request as { body: unknown }).body, {
    username: 'admin',
    password: '***',
  })
  for (const h of [String(res.headers['x-fw-debug']), String(res.headers['server-timing'])]) {
    assert.not.ok(h.includes('admin-pass'))
    assert.not.ok(h.includes(token))
  }
})

test('auth reports an API key: what "apiKey", the application, never the key', async ({ dev }) => {
  const res = await dev.inject({
    url: '/api/v1/products/1',
    headers: { accept: 'application/json', apikey: 'demo-api-key' },
  })
  assert.is(res.status, 200)
  const debug = res.json<{ _debug: { auth: unknown } }>()._debug
  assert.equal(debug.auth, { what: 'apiKey', application: 'playground', user: null })
  assert.not.ok(JSON.stringify(debug).includes('demo-api-key'), 'the key itself')
  // Without a key nothing authenticated: null, as before.
  const anonymous = await dev.inject({
    url: '/_demo/ping',
    headers: { accept: 'application/json' },
  })
  assert.is(anonymous.json<{ _debug: { auth: unknown } }>()._debug.auth, null)
})

test('migrations: every migration of the app with its state, pending ones with executed_at null', async () => {
  // A database of its own, not yet migrated: every migration is pending.
  const db = await createTestDatabase()
  const app = createApp({
    env: { DATABASE_URL: db.url, FW_APP_KEY: KEY },
    logger: createMemoryLogger(),
  })
  try {
    await app.boot()
    const before = await app.plugin('database').status()
    assert.ok(before.pending.length >= 2, before.pending.join(', '))
    const payload = async () =>
      (await app.inject({ url: '/_demo/ping', headers: { accept: 'application/json' } })).json<{
        _debug: { migrations: { name: string; executed_at: string | null }[] }
      }>()._debug.migrations
    const pending = await payload()
    assert.equal(
      pending.map((m) => m.name),
      before.pending,
    )
    assert.ok(pending.every((m) => m.executed_at === null))
    // Prepared (what `fw serve` and `fw migrate` do): each one ran, oldest first.
    await app.plugin('database').prepare()
    const ran = await payload()
    assert.equal(
      ran.map((m) => m.name),
      before.pending,
    )
    for (const m of ran) assert.ok(!Number.isNaN(Date.parse(String(m.executed_at))), m.name)
  } finally {
    await app.close()
    await db.drop()
  }
})

test('150 queries: 100 statements kept, count 150', async ({ dev }) => {
  const res = await dev.inject('/_demo/queries?n=150')
  const q = res.json<{
    _debug: {
      queries: { count: number; statements: unknown[]; truncated?: boolean; total_ms: number }
    }
  }>()._debug.queries
  assert.is(q.count, 150)
  assert.is(q.statements.length, 100)
  assert.is(q.truncated, true)
  assert.is(JSON.parse(String(res.headers['x-fw-debug'])).queries, 150)
  assert.match(String(res.headers['server-timing']), /db;dur=[\d.]+;desc="150 queries"/)
  const one = await dev.inject('/_demo/queries?n=1')
  assert.match(String(one.headers['server-timing']), /desc="1 query"/)
  assert.is(
    one.json<{ _debug: { queries: { truncated?: boolean } } }>()._debug.queries.truncated,
    undefined,
  )
})

test('the home page carries the island; JSON arrays and fragments only headers', async ({
  dev,
}) => {
  const home = await dev.inject('/')
  assert.ok(home.body.includes('<script type="application/json" id="fw-debug-data" hidden>'))
  const arr = await dev.inject('/_demo/array')
  assert.ok(arr.body.startsWith('['))
  assert.ok(arr.headers['x-fw-debug'])
  const measured = await dev.inject('/_demo/measure')
  const services = measured.json<{ _debug: { services: { name: string }[] } }>()._debug.services
  assert.equal(
    services.map((s) => s.name),
    ['PriceService', 'customer-secret-lookup'],
  )
})

test("/_demo/measure's app-named timer is in the debug payload, never in Server-Timing", async ({
  dev,
  prod,
}) => {
  const res = await dev.inject('/_demo/measure')
  assert.is(res.status, 200)
  const services = res.json<{
    _debug: { services: { name: string; calls?: number; ms?: number }[] }
  }>()._debug.services
  const call = services.find((s) => s.name === 'customer-secret-lookup')
  assert.ok(call, JSON.stringify(services))
  assert.is(call.calls, 1)
  assert.ok(Number(call.ms) > 0, 'the call is timed')
  const timing = String(res.headers['server-timing'])
  assert.ok(timing.length > 0, 'development sends Server-Timing')
  assert.not.match(timing, /customer|secret|lookup|PriceService/)
  // Production with a grant annotates too: still not in the header.
  const { token } = prod.plugin('debug').issueToken(600)!
  const granted = await prod.inject(`/_demo/measure?_debug=${token}`)
  assert.ok(granted.headers['server-timing'])
  assert.not.match(String(granted.headers['server-timing']), /customer|secret|lookup/)
  assert.ok(granted.body.includes('customer-secret-lookup'))
})

const sessionPhases = (events: readonly { type: string; data: unknown }[]) =>
  events.filter(
    (e) => e.type === 'phase.completed' && (e.data as { name: string }).name === 'session',
  )

test('development: a session cookie records the session phase on a route that never asks who', async ({
  dev,
  prod,
}) => {
  const { session } = await signIn(dev)
  const res = await dev.inject({ url: '/_demo/ping', cookies: { fw_session: session } })
  assert.is(res.status, 200)
  assert.is(sessionPhases(res.events).length, 1)
  const body = res.json<{
    _debug: { timing: Record<string, number>; auth: { user: { username: string } | null } }
  }>()
  assert.type(body._debug.timing.session, 'number')
  assert.is(body._debug.auth.user?.username, 'editor')
  assert.match(String(res.headers['server-timing']), /(^|, )session;dur=[\d.]+/)
  // Without the cookie: no session to load, nothing resolved.
  const anonymous = await dev.inject('/_demo/ping')
  assert.is(sessionPhases(anonymous.events).length, 0)
  assert.not.ok(anonymous.events.some((e) => e.type === 'auth.resolved'))
  assert.not.match(String(anonymous.headers['server-timing']), /session/)
  // Production loads a session only when something asks.
  const inProd = await prod.inject({ url: '/_demo/ping', cookies: { fw_session: session } })
  assert.is(inProd.body, '{"hello":"world","n":1}')
  assert.is(sessionPhases(inProd.events).length, 0)
})

test("development: a HEAD's Content-Length is the GET's, its payload describing the GET", async ({
  dev,
}) => {
  // The payload's figures (times, memory) are held still, so two requests differ only by what
  // the payload says about them.
  const realNow = performance.now.bind(performance)
  const realMemory = process.memoryUsage
  const frozen = realNow()
  performance.now = () => frozen
  process.memoryUsage = Object.assign(() => ({ ...realMemory(), heapUsed: 50_000_000 }), {
    rss: realMemory.rss,
  })
  try {
    for (const path of ['/_demo/ping', '/_demo/text', '/', '/_demo/measure', '/no-such-page']) {
      const get = await dev.inject(path)
      const head = await dev.inject({ method: 'HEAD', url: path })
      assert.is(head.status, get.status, path)
      assert.is(head.body, '', path)
      assert.is(Number(get.headers['content-length']), Buffer.byteLength(get.body), path)
      assert.is(head.headers['content-length'], get.headers['content-length'], path)
      // The summary header too, but for the request id each request gets.
      const summary = (h: unknown) => ({ ...JSON.parse(String(h)), id: undefined })
      assert.equal(summary(head.headers['x-fw-debug']), summary(get.headers['x-fw-debug']), path)
    }
  } finally {
    performance.now = realNow
    process.memoryUsage = realMemory
  }
  // What the HEAD's payload says: the GET it stands for; its log keeps the method it came with.
  let captured: Record<string, unknown> | undefined
  dev.hooks.render.tap({ name: 'test-capture', stage: 200 }, (reply, ctx) => {
    if (ctx.method === 'HEAD' && reply.body.kind === 'json')
      captured = reply.body.value as Record<string, unknown>
    return reply
  })
  const head = await dev.inject({ method: 'HEAD', url: '/_demo/ping' })
  const payload = captured?._debug as {
    request: { method: string }
    request_method: string
    route: { method: string }
  }
  assert.is(payload.request.method, 'GET')
  assert.is(payload.request_method, 'GET')
  assert.is(payload.route.method, 'GET')
  assert.is(head.events.find((e) => e.type === 'request.received')?.data.method, 'HEAD')
})

test("a refused token's debug payload: its claims read without verification and its expiry, beside the reason", async ({
  dev,
}) => {
  const login = await dev.inject({
    method: 'POST',
    url: '/account/login',
    body: { username: 'editor', password: 'editor-pass' },
  })
  const token = login.json<{ access_token: string }>().access_token
  const [header, body, signature] = token.split('.') as [string, string, string]
  const genuine = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as Record<
    string,
    unknown
  >
  type Auth = {
    user: unknown
    refused?: string
    expires: number | null
    claims?: Record<string, unknown>
    unverified?: boolean
  }
  const authOf = async (bearer: string): Promise<{ auth: Auth; text: string }> => {
    const res = await dev.inject({
      url: '/api/v1/me',
      headers: { authorization: `Bearer ${bearer}` },
    })
    assert.is(res.status, 401, res.body)
    const debug = res.json<{ _debug: { auth: Auth } }>()._debug
    return { auth: debug.auth, text: JSON.stringify(debug) + String(res.headers['x-fw-debug']) }
  }
  // An edited payload (another user, an expiry, a claim outside the list) under the real
  // signature: refused, and the payload shows what the token claims.
  const edited = Buffer.from(
    JSON.stringify({
      ...genuine,
      username: 'admin',
      userid: 1,
      exp: 1_900_000_000,
      secret: 'not-shown',
      jti: 'x'.repeat(500),
    }),
  ).toString('base64url')
  const forged = `${header}.${edited}.${signature}`
  const { auth, text } = await authOf(forged)
  assert.is(auth.user, null)
  assert.is(auth.refused, 'invalid')
  assert.is(auth.unverified, true)
  assert.is(auth.expires, 1_900_000_000)
  assert.is(auth.claims!.username, 'admin')
  assert.is(auth.claims!.userid, 1)
  assert.is(auth.claims!.exp, 1_900_000_000)
  assert.is(auth.claims!.sub, genuine.sub)
  assert.is(String(auth.claims!.jti).length, 201, 'a long claim is cut')
  assert.not.ok('secret' in auth.claims!)
  for (const never of [signature, forged, token, 'not-shown', header])
    assert.not.ok(text.includes(never), never.slice(0, 20))
  // A revoked token: its own claims, and `revoked`.
  await dev.inject({
    method: 'POST',
    url: '/account/logout',
    headers: { authorization: `Bearer ${token}` },
  })
  const revoked = await authOf(token)
  assert.is(revoked.auth.refused, 'revoked')
  assert.is(revoked.auth.claims!.jti, genuine.jti)
  assert.is(revoked.auth.claims!.username, 'editor')
  assert.is(revoked.auth.expires, (genuine.exp as number | undefined) ?? null)
  assert.not.ok(revoked.text.includes(signature))
  // Not a JWT: the reason alone.
  const junk = await authOf('not.a.jwt')
  assert.is(junk.auth.refused, 'invalid')
  assert.is(junk.auth.claims, undefined)
  assert.is(junk.auth.expires, null)
})

test('production without a grant: the playground answers as if there were no debug plugin', async ({
  prod,
}) => {
  const ping = await prod.inject('/_demo/ping')
  assert.is(ping.body, '{"hello":"world","n":1}')
  for (const h of ['x-fw-debug', 'x-request-id', 'server-timing', 'vary'])
    assert.is(ping.headers[h], undefined, h)
  const err = await prod.inject('/_demo/error')
  assert.not.ok(err.body.includes('fw-debug-data'))
  assert.not.ok(err.body.includes('threw on purpose'))
})

test('production with a grant: annotated, error page still a production page', async ({ prod }) => {
  const { token } = prod.plugin('debug').issueToken(600)!
  const res = await prod.inject(`/_demo/queries?n=5&_debug=${token}`)
  assert.is(res.json<{ _debug: { queries: { count: number } } }>()._debug.queries.count, 5)
  assert.is(res.headers['cache-control'], 'no-store, private')
  const err = await prod.inject({ url: '/_demo/error', headers: { cookie: `fw_debug=${token}` } })
  assert.is(err.status, 500)
  assert.ok(err.body.includes('id="fw-debug-data"'))
  const page = err.body.slice(0, err.body.indexOf('<script type="application/json"'))
  assert.not.ok(page.includes('threw on purpose'), 'the page itself shows no details')
})

test.run()
