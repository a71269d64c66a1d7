import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runStatement } from 'fw/plugins/database'
import { CORS_DEFAULTS } from 'fw/plugins/api'
import { DEMO_KEY, playgroundApp, type PlaygroundApp } from './fixtures.js'

// CORS of the API pipeline (plugins/api/README.md "CORS"): from `api.cors_origins`, and from the
// applications row with `api.cors_from_db`, against the suite's real database.
interface Apps {
  config: PlaygroundApp
  fromDb: PlaygroundApp
}
const test = suite<Apps>('api cors', {} as Apps)

test.before(async (context) => {
  const [config, fromDb] = await Promise.all([
    playgroundApp({ api: { cors_origins: ['https://app.example', 'https://Other.example/'] } }),
    playgroundApp({ api: { cors_from_db: true }, features: ['authorization-server'] }),
  ])
  context.config = config
  context.fromDb = fromDb
})
test.after(async ({ config, fromDb }) => {
  await config.close()
  await fromDb.close()
})

const URL = '/api/v1/products/1'

function preflight(app: PlaygroundApp, origin: string | undefined, url = URL) {
  return app.kernel.inject({
    method: 'OPTIONS',
    url,
    headers: {
      ...(origin === undefined ? {} : { origin }),
      'access-control-request-method': 'PUT',
      'access-control-request-headers': 'apiKey, content-type',
    },
  })
}

test('config: a listed origin is echoed with Vary: Origin', async ({ config }) => {
  for (const origin of ['https://app.example', 'https://other.example']) {
    const res = await config.kernel.inject({ url: URL, headers: { apikey: DEMO_KEY, origin } })
    assert.is(res.status, 200)
    assert.is(res.headers['access-control-allow-origin'], origin)
    assert.match(String(res.headers.vary), /\bOrigin\b/)
  }
})

test('config: an unlisted origin gets no Access-Control-Allow-Origin, and the request runs', async ({
  config,
}) => {
  for (const origin of ['https://evil.example', 'https://app.example.evil.test', 'null']) {
    const res = await config.kernel.inject({ url: URL, headers: { apikey: DEMO_KEY, origin } })
    assert.is(res.status, 200)
    assert.is(res.json<{ id: number }>().id, 1)
    assert.is(res.headers['access-control-allow-origin'], undefined)
  }
})

test('config: CORS headers also on the middleware failures', async ({ config }) => {
  const res = await config.kernel.inject({ url: URL, headers: { origin: 'https://app.example' } })
  assert.is(res.status, 403)
  assert.is(res.headers['access-control-allow-origin'], 'https://app.example')
})

test('preflight answers 204 without an API key, before authentication, on any API path', async ({
  config,
}) => {
  for (const url of [
    URL,
    '/api/v1/products',
    '/api/v2/products',
    '/api/v1/me',
    '/api/v9/nothing',
  ]) {
    const res = await preflight(config, 'https://app.example', url)
    assert.is(res.status, 204, url)
    assert.is(res.body, '')
    assert.is(res.headers['access-control-allow-origin'], 'https://app.example')
    assert.is(res.headers['access-control-allow-methods'], CORS_DEFAULTS.methods)
    assert.is(res.headers['access-control-allow-headers'], CORS_DEFAULTS.headers)
    assert.is(res.headers['access-control-max-age'], '86400')
  }
  const unlisted = await preflight(config, 'https://evil.example')
  assert.is(unlisted.status, 204)
  assert.is(unlisted.headers['access-control-allow-origin'], undefined)
  // Outside the API an OPTIONS is routed as usual.
  assert.is((await preflight(config, 'https://app.example', '/_demo/ping')).status, 405)
})

test('the playground default (`*`): every origin, the default methods and headers', async ({
  fromDb,
}) => {
  // fromDb has no enabled row yet: the `*` fallback.
  const res = await fromDb.kernel.inject({
    url: URL,
    headers: { apikey: DEMO_KEY, origin: 'https://any.example' },
  })
  assert.is(res.headers['access-control-allow-origin'], '*')
  const pre = await preflight(fromDb, 'https://any.example')
  assert.is(pre.status, 204)
  assert.is(pre.headers['access-control-allow-origin'], '*')
  assert.is(pre.headers['access-control-allow-methods'], 'GET, POST, PUT, PATCH, DELETE, OPTIONS')
  assert.is(
    pre.headers['access-control-allow-headers'],
    'Content-Type, Authorization, X-Requested-With, X-CSRF-Token, apiKey, accessToken',
  )
})

async function setRow(app: PlaygroundApp, sql: string, bindings: unknown[] = []): Promise<void> {
  await runStatement(app.kernel.plugin('database').em(), { sql, bindings })
  app.kernel.plugin('api').clearCache()
}

test('database: an enabled row gives its origins, methods and headers', async ({ fromDb }) => {
  await setRow(
    fromDb,
    "update applications set cors_enabled = true, origin = 'https://db.example, https://two.example', allowed_methods = 'GET,POST', allowed_headers = 'apiKey, Content-Type' where name = 'playground'",
  )
  const listed = await preflight(fromDb, 'https://two.example')
  assert.is(listed.status, 204)
  assert.is(listed.headers['access-control-allow-origin'], 'https://two.example')
  assert.is(listed.headers['access-control-allow-methods'], 'GET, POST')
  assert.is(listed.headers['access-control-allow-headers'], 'apiKey, Content-Type')
  const res = await fromDb.kernel.inject({
    url: URL,
    headers: { apikey: DEMO_KEY, origin: 'https://db.example' },
  })
  assert.is(res.status, 200)
  assert.is(res.headers['access-control-allow-origin'], 'https://db.example')
  assert.match(String(res.headers.vary), /\bOrigin\b/)
  const unlisted = await fromDb.kernel.inject({
    url: URL,
    headers: { apikey: DEMO_KEY, origin: 'https://app.example' },
  })
  assert.is(unlisted.status, 200)
  assert.is(unlisted.headers['access-control-allow-origin'], undefined)
})

test('database: read through a short cache (a change shows once it expires)', async ({
  fromDb,
}) => {
  await setRow(
    fromDb,
    "update applications set origin = 'https://db.example' where name = 'playground'",
  )
  assert.is(
    (await preflight(fromDb, 'https://db.example')).headers['access-control-allow-origin'],
    'https://db.example',
  )
  await runStatement(fromDb.kernel.plugin('database').em(), {
    sql: "update applications set origin = 'https://later.example' where name = 'playground'",
    bindings: [],
  })
  // Still the cached policy.
  assert.is(
    (await preflight(fromDb, 'https://db.example')).headers['access-control-allow-origin'],
    'https://db.example',
  )
  fromDb.kernel.plugin('api').clearCache()
  assert.is(
    (await preflight(fromDb, 'https://db.example')).headers['access-control-allow-origin'],
    undefined,
  )
})

test('database: the authorization-server feature off → `*`', async ({ fromDb }) => {
  const features = fromDb.kernel.config.features
  features.splice(features.indexOf('authorization-server'), 1)
  try {
    fromDb.kernel.plugin('api').clearCache()
    const res = await preflight(fromDb, 'https://nobody.example')
    assert.is(res.headers['access-control-allow-origin'], '*')
  } finally {
    features.push('authorization-server')
    fromDb.kernel.plugin('api').clearCache()
  }
})

test('database: a disabled row → `*`', async ({ fromDb }) => {
  await setRow(fromDb, "update applications set cors_enabled = false where name = 'playground'")
  const res = await preflight(fromDb, 'https://nobody.example')
  assert.is(res.headers['access-control-allow-origin'], '*')
  assert.is(res.headers['access-control-allow-methods'], CORS_DEFAULTS.methods)
})

test('database: no row for the application name → `*`', async ({ fromDb }) => {
  await setRow(
    fromDb,
    "update applications set cors_enabled = true, name = 'renamed' where name = 'playground'",
  )
  const res = await preflight(fromDb, 'https://nobody.example')
  assert.is(res.headers['access-control-allow-origin'], '*')
  await setRow(fromDb, "update applications set name = 'playground' where name = 'renamed'")
})

test('database: unavailable → `*` (last: closes the database)', async ({ fromDb }) => {
  await setRow(fromDb, "update applications set cors_enabled = true where name = 'playground'")
  assert.is(
    (await preflight(fromDb, 'https://nobody.example')).headers['access-control-allow-origin'],
    undefined,
  )
  await fromDb.kernel.plugin('database').orm.close(true)
  fromDb.kernel.plugin('api').clearCache()
  const res = await preflight(fromDb, 'https://nobody.example')
  assert.is(res.status, 204)
  assert.is(res.headers['access-control-allow-origin'], '*')
})

test.run()
