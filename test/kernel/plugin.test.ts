import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin, FwError, type Kernel, type PluginName } from 'fw'
import { createTestKernel } from 'fw/testing'

const test = suite('plugin')

// The test plugins' names, declared as a plugin package declares its own (dependsOn is typed).
declare module 'fw' {
  interface PluginApis {
    a: void
    b: void
    c: void
    d: void
    panel: void
    pages: void
    acl: void
    store: void
    speaker: { greet(who: string): string }
    listener: void
  }
}

const noop = (name: string, dependsOn: PluginName[] = [], order: string[] = []) =>
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
      [noop('panel', ['acl', 'pages'], order)],
      [noop('pages', [], order)],
      [noop('acl', ['store'], order)],
      [noop('store', [], order)],
    ],
  })
  await kernel.boot()
  assert.equal(order, ['pages', 'store', 'acl', 'panel'])
  assert.equal(
    kernel.bootTimeline.map((t) => t.name),
    order,
  )
})

test('fails boot naming a missing dependency and what to do', async () => {
  const kernel = createTestKernel({ plugins: [[noop('panel', ['acl'])]] })
  const error = await bootError(() => kernel.boot())
  assert.is(error.code, 'FW_ERR_PLUGIN_MISSING_DEPENDENCY')
  assert.match(
    error.message,
    "Plugin 'panel' depends on 'acl', which is not registered. Register 'acl'",
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
  const speaker = definePlugin({
    name: 'speaker',
    setup: (_kernel, options: { greeting: string }) => ({
      greet: (who: string) => `${options.greeting}, ${who}`,
    }),
  })
  let heard = ''
  const listener = definePlugin({
    name: 'listener',
    dependsOn: ['speaker'],
    setup(kernel) {
      heard = kernel.plugin('speaker').greet('ada')
    },
  })
  const kernel = createTestKernel({ plugins: [[listener], [speaker, { greeting: 'hello' }]] })
  await kernel.boot()
  assert.is(heard, 'hello, ada')
})

test('refuses kernel.plugin() for a plugin that is not registered', async () => {
  const kernel = createTestKernel()
  await kernel.boot()
  try {
    kernel.plugin('nope' as PluginName)
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

test('sets an optional dependency up first when it is registered, and boots without it', async () => {
  const order: string[] = []
  const seen: boolean[] = []
  const user = definePlugin({
    name: 'listener',
    optionalDependsOn: ['speaker'],
    setup(kernel) {
      order.push('listener')
      seen.push(kernel.hasPlugin('speaker'))
    },
  })
  const speaker = noop('speaker', [], order) as unknown as typeof user
  await createTestKernel({ plugins: [[user], [speaker]] }).boot()
  assert.equal(order, ['speaker', 'listener'])
  await createTestKernel({ plugins: [[user]] }).boot()
  assert.equal(seen, [true, false])
})

test('refuses, in setup, a plugin asked for without declaring it, naming the fix', async () => {
  for (const ask of [(k: Kernel) => k.plugin('speaker'), (k: Kernel) => k.hasPlugin('speaker')]) {
    const sneaky = definePlugin({ name: 'listener', setup: (kernel) => void ask(kernel) })
    const kernel = createTestKernel({ plugins: [[noop('speaker')], [sneaky]] })
    const error = await bootError(() => kernel.boot())
    assert.is(error.code, 'FW_ERR_PLUGIN_UNDECLARED')
    assert.match(error.message, "Add 'speaker' to its dependsOn (or to optionalDependsOn")
  }
})

test('an optional dependency in a cycle is reported like a required one', async () => {
  const a = definePlugin({ name: 'a', optionalDependsOn: ['b'], setup() {} })
  const kernel = createTestKernel({ plugins: [[a], [noop('b', ['a'])]] })
  const error = await bootError(() => kernel.boot())
  assert.is(error.code, 'FW_ERR_PLUGIN_CYCLE')
  assert.match(error.message, 'a → b → a')
})

test.run()
