import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { definePlugin } from 'fw'
import createApp from 'fw/playground'
import { createMemoryLogger, expectEvent } from 'fw/testing'

const test = suite('playground extra plugins')

declare module 'fw' {
  interface PluginApis {
    'playground-extra': void
  }
}

/** A plugin under development, as its author would try it on the playground. */
const extra = definePlugin({
  name: 'playground-extra',
  dependsOn: ['database'],
  setup(kernel, options: { word: string }) {
    const db = kernel.plugin('database')
    kernel.router
      .get('extra/{name}', async (ctx) => {
        const [row] = await db.runStatement({
          sql: 'select upper(?) as shout',
          bindings: [ctx.params.name],
        })
        return { word: options.word, shout: row?.shout }
      })
      .name('extra.show')
  },
})

test('serves the routes of a plugin passed to createApp beside its own', async () => {
  const kernel = createApp({
    env: { DATABASE_URL: 'pglite://memory', FW_CONFIG: '{"features":[]}' },
    logger: createMemoryLogger(),
    plugins: [[extra, { word: 'hi' }]],
  })
  try {
    const res = await kernel.inject('/extra/ada')
    assert.is(res.status, 200)
    assert.equal(res.json(), { word: 'hi', shout: 'ADA' })
    assert.is(expectEvent(res.events, 'route.matched').name, 'extra.show')
    assert.is((await kernel.inject('/_demo/ping')).status, 200)
  } finally {
    await kernel.close()
  }
})

test('type-checks the options of each plugin it is given', () => {
  // Compile-time only: the plugin's options are required and typed.
  const _check = () => {
    // @ts-expect-error -- `word` must be a string
    createApp({ plugins: [[extra, { word: 3 }]] })
    // @ts-expect-error -- the options are required
    createApp({ plugins: [[extra]] })
  }
  assert.type(_check, 'function')
})

test.run()
