// A health check's name is snake_case; any other fails `register()` with a coded FwError.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin, FwError } from 'fw'
import health, { HealthRegistry, result, type HealthCheck } from 'fw/plugins/health'
import { createTestKernel } from 'fw/testing'
import { thrownFwError } from '../../fixtures/thrown.js'

const test = suite('health check names')

const check = (name: string): HealthCheck => ({ name, run: () => result('ok', name, 'fine') })

test('snake_case names are accepted', () => {
  const r = new HealthRegistry()
  for (const name of ['disk_space', 'hello_stats', 'db2', 'a_1_b']) r.register(check(name))
  assert.equal(
    r.checks().map((c) => c.name),
    ['disk_space', 'hello_stats', 'db2', 'a_1_b'],
  )
})

test('another name fails with FW_ERR_HEALTH_CHECK_NAME, quoting it', () => {
  const r = new HealthRegistry()
  for (const name of ['hello-stats', 'Disk', 'x_', '_x', 'a__b', '1st', '', 'disk space']) {
    const error = thrownFwError(() => r.register(check(name)))
    assert.is(error.code, 'FW_ERR_HEALTH_CHECK_NAME', name)
    assert.match(error.message, `got ${JSON.stringify(name)}.`)
    assert.match(error.message, 'snake_case')
  }
  assert.is(thrownFwError(() => r.register({} as HealthCheck)).code, 'FW_ERR_HEALTH_CHECK_NAME')
  assert.equal(r.checks(), [])
})

test('a check without run() fails with FW_ERR_HEALTH_CHECK_INVALID', () => {
  const error = thrownFwError(() => new HealthRegistry().register({ name: 'x' } as HealthCheck))
  assert.is(error.code, 'FW_ERR_HEALTH_CHECK_INVALID')
  assert.match(error.message, "Health check 'x' needs a run() function")
})

test("a plugin registering a check named like itself ('hello-stats') fails boot with the code", async () => {
  const plugin = definePlugin({
    name: 'hello-stats',
    dependsOn: ['health'],
    setup(kernel) {
      kernel.plugin('health').register(check('hello-stats'))
    },
  })
  const kernel = createTestKernel({
    plugins: [[health, { diskSpace: false, memoryLimit: false, cache: false }], [plugin]],
  })
  const error = await kernel.boot().then(
    () => undefined,
    (e: unknown) => e,
  )
  assert.instance(error, FwError)
  assert.is((error as FwError).code, 'FW_ERR_HEALTH_CHECK_NAME')
})

test.run()
