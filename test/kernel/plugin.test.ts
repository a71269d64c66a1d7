import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin, FwError } from 'fw'
import { createTestKernel } from 'fw/testing'

const test = suite('plugin')

const noop = (name: string, dependsOn: string[] = [], order: string[] = []) =>
  definePlugin({
    name,
    dependsOn,
    setup() {
      order.push(name)
    },
  })

async function bootError(run: () => Promise<void>): Promise<FwError> {
  try {
    await run()
  } catch (error) {
    assert.instance(error, FwError)
    return error as FwError
  }
  throw new Error('expected boot to fail')
}

test('sets plugins up after what they depend on, keeping registration order otherwise', async () => {
  const order: string[] = []
  const kernel = createTestKernel({
    plugins: [
      [noop('admin', ['auth', 'views'], order)],
      [noop('views', [], order)],
      [noop('auth', ['database'], order)],
      [noop('database', [], order)],
    ],
  })
  await kernel.boot()
  assert.equal(order, ['views', 'database', 'auth', 'admin'])
  assert.equal(
    kernel.bootTimeline.map((t) => t.name),
    order,
  )
})

test('fails boot naming a missing dependency and what to do', async () => {
  const kernel = createTestKernel({ plugins: [[noop('admin', ['auth'])]] })
  const error = await bootError(() => kernel.boot())
  assert.is(error.code, 'FW_ERR_PLUGIN_MISSING_DEPENDENCY')
  assert.match(
    error.message,
    "Plugin 'admin' depends on 'auth', which is not registered. Register 'auth'",
  )
})

test('fails boot naming every plugin of a dependency cycle', async () => {
  const kernel = createTestKernel({
    plugins: [[noop('a', ['b'])], [noop('b', ['c'])], [noop('c', ['a'])]],
  })
  const error = await bootError(() => kernel.boot())
  assert.is(error.code, 'FW_ERR_PLUGIN_CYCLE')
  assert.match(error.message, 'a → b → c → a')
})

test('fails boot when two plugins share a name', async () => {
  const kernel = createTestKernel({ plugins: [[noop('twice')], [noop('twice')]] })
  const error = await bootError(() => kernel.boot())
  assert.is(error.code, 'FW_ERR_PLUGIN_DUPLICATE')
  assert.match(error.message, "Plugin 'twice' is registered twice")
})

test('hands the API a plugin returns to the plugins that depend on it', async () => {
  const greeter = definePlugin({
    name: 'greeter',
    setup: (_kernel, options: { greeting: string }) => ({
      greet: (who: string) => `${options.greeting}, ${who}`,
    }),
  })
  let heard = ''
  const user = definePlugin({
    name: 'user',
    dependsOn: ['greeter'],
    setup(kernel) {
      heard = kernel.plugin<{ greet(who: string): string }>('greeter').greet('ada')
    },
  })
  const kernel = createTestKernel({ plugins: [[user], [greeter, { greeting: 'hello' }]] })
  await kernel.boot()
  assert.is(heard, 'hello, ada')
})

test('refuses kernel.plugin() for a plugin that is not registered', async () => {
  const kernel = createTestKernel()
  await kernel.boot()
  try {
    kernel.plugin('nope')
    assert.unreachable()
  } catch (error) {
    assert.is((error as FwError).code, 'FW_ERR_PLUGIN_UNKNOWN')
    assert.match((error as Error).message, "Plugin 'nope' is not registered")
  }
})

test('refuses a plugin without a name', () => {
  assert.throws(() => definePlugin({ name: '', setup() {} }), /needs a non-empty `name`/)
})

test('boots once however often boot() is called', async () => {
  let setups = 0
  const kernel = createTestKernel({
    plugins: [[definePlugin({ name: 'once', setup: () => void setups++ })]],
  })
  await Promise.all([kernel.boot(), kernel.boot()])
  await kernel.boot()
  assert.is(setups, 1)
  assert.is(kernel.state, 'booted')
})

test('refuses to register a plugin after boot', async () => {
  const kernel = createTestKernel()
  await kernel.boot()
  assert.throws(
    () => kernel.register(noop('late')),
    /Cannot register a plugin while the kernel is booted/,
  )
})

test('records the boot phases bootstrap and providers once', async () => {
  const kernel = createTestKernel({ plugins: [[noop('x')]] })
  await kernel.boot()
  assert.equal(kernel.bootPhases.map((p) => p.name).sort(), ['bootstrap', 'providers'])
})

test.run()
