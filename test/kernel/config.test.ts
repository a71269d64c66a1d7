import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, defineConfig, FwError, hasFeature, isDevelopment, resolveConfig } from 'fw'

const test = suite('config')
const root = '/tmp/fw-config-test'

function failure(run: () => unknown): FwError {
  try {
    run()
  } catch (error) {
    assert.instance(error, FwError)
    return error as FwError
  }
  throw new Error('expected a configuration error')
}

test('merges FW_CONFIG last: objects key by key, arrays replace', () => {
  const config = resolveConfig(
    defineConfig({
      app: { name: 'shop' },
      features: ['debug', 'DevPanel'],
      api: { cors_origins: ['https://a.test'], cors_from_db: false },
    }),
    {
      root,
      env: {
        FW_CONFIG: '{"features":["debug"],"api":{"cors_from_db":true},"auth":{"token_ttl":60}}',
      },
    },
  )
  assert.equal(config.features, ['debug'])
  assert.equal(config.api, { cors_origins: ['https://a.test'], cors_from_db: true })
  assert.is(config.auth.token_ttl, 60)
  assert.is(config.app.name, 'shop')
})

test('reads PORT, HOST, FW_APP_KEY and DATABASE_URL from the environment', () => {
  const config = resolveConfig(
    {},
    {
      root,
      env: { PORT: '8080', HOST: '0.0.0.0', FW_APP_KEY: 'k', DATABASE_URL: 'pglite://memory' },
    },
  )
  assert.is(config.http.port, 8080)
  assert.is(config.http.host, '0.0.0.0')
  assert.is(config.app.key, 'k')
  assert.is(config.database.url, 'pglite://memory')
})

test('fails naming FW_CONFIG when it is not JSON', () => {
  const error = failure(() => resolveConfig({}, { root, env: { FW_CONFIG: '{features:' } }))
  assert.is(error.code, 'FW_ERR_CONFIG_ENV')
  assert.match(error.message, 'FW_CONFIG is not valid JSON')
})

test('fails naming FW_CONFIG when it is JSON but not an object', () => {
  assert.match(
    failure(() => resolveConfig({}, { root, env: { FW_CONFIG: '[1]' } })).message,
    'FW_CONFIG must be a JSON object',
  )
})

test('fails naming the key and the expected type of a wrong value', () => {
  const error = failure(() =>
    resolveConfig({}, { root, env: { FW_CONFIG: '{"auth":{"token_ttl":"soon"}}' } }),
  )
  assert.is(error.code, 'FW_ERR_CONFIG_INVALID')
  assert.is(
    error.message,
    `Config key 'auth.token_ttl' must be an integer (or left out), got "soon".`,
  )
  assert.match(
    failure(() => resolveConfig({ features: 'debug' as unknown as string[] }, { root })).message,
    "'features' must be an array of strings",
  )
})

test('fails naming PORT when it is not a number', () => {
  assert.match(
    failure(() => resolveConfig({}, { root, env: { PORT: 'eighty' } })).message,
    'Environment variable PORT="eighty" is not a whole number',
  )
  assert.match(
    failure(() => resolveConfig({}, { root, env: { PORT: '70000' } })).message,
    "Config key 'http.port' must be an integer from 0 to 65535",
  )
})

test('fails kernel creation on invalid configuration', () => {
  assert.throws(
    () => createKernel({ root, env: { FW_CONFIG: '{"debug":"yes"}' } }),
    /Config key 'debug' must be true or false/,
  )
})

test('ignores prototype keys in FW_CONFIG', () => {
  const config = resolveConfig(
    {},
    { root, env: { FW_CONFIG: '{"__proto__":{"polluted":true},"app":{"constructor":{"x":1}}}' } },
  )
  assert.is(({} as Record<string, unknown>).polluted, undefined)
  assert.is((config as unknown as Record<string, unknown>).polluted, undefined)
})

test('turns development mode on for each of its four switches and for nothing else', () => {
  const base = resolveConfig({}, { root, env: {} })
  assert.is(isDevelopment(base, {}), false)
  for (const v of ['1', 'true', 'yes']) assert.is(isDevelopment(base, { FW_DEBUG: v }), true, v)
  for (const v of ['', '0', 'false', 'FALSE'])
    assert.is(isDevelopment(base, { FW_DEBUG: v }), false, v)
  assert.is(isDevelopment(resolveConfig({ debug: true }, { root, env: {} }), {}), true)
  assert.is(isDevelopment(resolveConfig({ development: true }, { root, env: {} }), {}), true)
  assert.is(isDevelopment(base, { NODE_ENV: 'development' }), true)
  assert.is(isDevelopment(base, { NODE_ENV: 'production' }), false)
})

test('matches features case-insensitively', () => {
  const config = resolveConfig({ features: ['DevPanel'] }, { root, env: {} })
  assert.ok(hasFeature(config, 'devpanel'))
  assert.ok(!hasFeature(config, 'debug'))
})

test('normalises the admin prefix and switches the area off when it is empty', () => {
  assert.is(
    resolveConfig({ admin: { prefix: '/admin/' } }, { root, env: {} }).admin.prefix,
    'admin',
  )
  assert.is(resolveConfig({ admin: { prefix: '' } }, { root, env: {} }).admin.prefix, undefined)
})

test.run()
