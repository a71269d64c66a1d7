// A config rule may be an object: bounds (`min`/`max`) and a `check` of its own, which fail
// `register()` with FW_ERR_CONFIG_INVALID naming the key; string rules keep working beside them.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { createKernel, definePlugin, silentLogger, type ConfigSlice, type Kernel } from 'fw'
import { thrownFwError } from '../fixtures/thrown.js'

const test = suite('config rule objects')
const root = '/tmp/fw-config-rules-test'

declare module 'fw' {
  interface FwConfig {
    quota: {
      per_page: number
      port: number
      grace: number | undefined
      currency: string
      label: string
      tags: string[]
      strict: boolean
    }
  }
  interface PluginApis {
    quota: void
  }
}

const quota = definePlugin({
  name: 'quota',
  config: {
    defaults: {
      quota: {
        per_page: 20,
        port: 8080,
        grace: undefined,
        currency: 'EUR',
        label: 'ab',
        tags: ['a'],
        strict: false,
      },
    },
    schema: {
      'quota.per_page': { kind: 'integer', min: 1, max: 100 },
      'quota.port': { kind: 'port', min: 1024 },
      'quota.grace': { kind: 'seconds?', max: 60 },
      'quota.currency': {
        kind: 'string',
        // `value` is typed by the kind: a string here.
        check: (value) =>
          /^[A-Z]{3}$/.test(value) ? undefined : 'use a three-letter code such as EUR',
      },
      'quota.label': { kind: 'string', min: 2, max: 4 },
      'quota.tags': { kind: 'string[]', min: 1 },
      'quota.strict': 'boolean',
    },
    env: { 'quota.per_page': 'QUOTA_PER_PAGE' },
  },
  setup() {},
})

function kernelWith(env: NodeJS.ProcessEnv): Kernel {
  return createKernel({ root, env, logger: silentLogger }).register(quota)
}

const over = (quota: Record<string, unknown>): NodeJS.ProcessEnv => ({
  FW_CONFIG: JSON.stringify({ quota }),
})

test('values within the bounds and passing the check resolve', () => {
  const kernel = kernelWith({
    ...over({ per_page: 100, grace: 60, label: 'abcd' }),
    QUOTA_PER_PAGE: '1',
  })
  assert.is(kernel.config.quota.per_page, 100)
  assert.is(kernelWith({ QUOTA_PER_PAGE: '1' }).config.quota.per_page, 1)
  assert.is(kernel.config.quota.grace, 60)
})

test('a value outside min/max fails register() naming the key and the bounds', () => {
  const cases: [Record<string, unknown>, string][] = [
    [{ per_page: 500 }, `Config key 'quota.per_page' must be an integer from 1 to 100, got 500.`],
    [{ per_page: 0 }, `Config key 'quota.per_page' must be an integer from 1 to 100, got 0.`],
    [{ per_page: 'x' }, `Config key 'quota.per_page' must be an integer from 1 to 100, got "x".`],
    [{ port: 80 }, `Config key 'quota.port' must be an integer from 1024 to 65535, got 80.`],
    [
      { grace: 90 },
      `Config key 'quota.grace' must be a whole number of seconds from 0 to 60 (or left out), got 90.`,
    ],
    [{ label: 'a' }, `Config key 'quota.label' must be a string of 2 to 4 characters, got "a".`],
    [
      { tags: [] },
      `Config key 'quota.tags' must be an array of strings with at least 1 entry, got [].`,
    ],
  ]
  for (const [values, message] of cases) {
    const error = thrownFwError(() => kernelWith(over(values)))
    assert.is(error.code, 'FW_ERR_CONFIG_INVALID')
    assert.is(error.message, message)
  }
  assert.is(
    thrownFwError(() => kernelWith({ QUOTA_PER_PAGE: '101' })).message,
    `Config key 'quota.per_page' must be an integer from 1 to 100, got 101.`,
  )
})

test("a check's problem sentence fails register() naming the key", () => {
  const error = thrownFwError(() => kernelWith(over({ currency: 'eur' })))
  assert.is(error.code, 'FW_ERR_CONFIG_INVALID')
  assert.is(
    error.message,
    `Config key 'quota.currency' is invalid (got "eur"): use a three-letter code such as EUR.`,
  )
  // The check never sees a value of the wrong kind: the kind's message comes first.
  assert.is(
    thrownFwError(() => kernelWith(over({ currency: 3 }))).message,
    `Config key 'quota.currency' must be a string, got 3.`,
  )
})

test('a malformed rule object is refused where the plugin is defined', () => {
  const define = (schema: Record<string, unknown>) => () =>
    definePlugin({
      name: 'quota',
      config: { defaults: { quota: { per_page: 1 } }, schema } as unknown as ConfigSlice,
      setup() {},
    })
  assert.throws(
    define({ 'quota.per_page': { kind: 'int' } }),
    /config.schema\['quota.per_page'\].kind is "int"; use one of string, integer/,
  )
  assert.throws(
    define({ 'quota.per_page': { kind: 'integer', min: 5, max: 1 } }),
    /has min 5 above max 1/,
  )
  assert.throws(define({ 'quota.per_page': { kind: 'boolean', min: 1 } }), /takes no min/)
  assert.throws(
    define({ 'quota.per_page': { kind: 'integer', check: 'no' } }),
    /check is not a function/,
  )
})

test('rule objects are typed: check gets the kind’s value, boolean takes no bounds', () => {
  const slice = (schema: ConfigSlice['schema']): ConfigSlice['schema'] => schema
  slice({ 'quota.per_page': { kind: 'integer', check: (n) => (n % 2 === 0 ? undefined : 'even') } })
  // @ts-expect-error a number's check does not take a string
  slice({ 'quota.per_page': { kind: 'integer', check: (n: string) => n } })
  // @ts-expect-error a boolean has no bounds
  slice({ 'quota.strict': { kind: 'boolean', min: 1 } })
  // @ts-expect-error not a kind
  slice({ 'quota.per_page': { kind: 'number' } })
})

test.run()
