import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { html, type RequestContext } from 'fw'
import { createTestKernel } from 'fw/testing'

const test = suite('legacy')

class Demo {
  echo(args: string[], ctx: RequestContext) {
    const legacy = ctx.match?.legacy
    return {
      args,
      controller: legacy?.controller,
      action: legacy?.action,
      option: legacy?.option ?? null,
      get: legacy?.get,
    }
  }
  index() {
    return { index: true }
  }
}

function app() {
  const kernel = createTestKernel()
  kernel.router.get('/', () => html('<p>home</p>'))
  kernel.router.get('demo/declared', () => ({ declared: true }))
  kernel.router.classic('demo', Demo)
  return kernel
}

test('sends /?r=… to the classic controller even though / is a declared route', async () => {
  const res = await app().inject('/?r=demo/echo/x&keep=1')
  assert.equal(res.json(), {
    args: ['x'],
    controller: 'demo',
    action: 'echo',
    option: 'x',
    get: { keep: '1' },
  })
})

test('invokes a classic action with the arguments array first', async () => {
  const res = await app().inject('/?r=demo/echo/c/d')
  assert.equal(res.json(), {
    args: ['c', 'd'],
    controller: 'demo',
    action: 'echo',
    option: null,
    get: { c: 'd' },
  })
})

test('reaches a classic controller by path only when no declared route answers', async () => {
  const kernel = app()
  assert.equal((await kernel.inject('/demo/declared')).json(), { declared: true })
  assert.equal((await kernel.inject('/demo/echo/y')).json<{ option: string }>().option, 'y')
  assert.equal((await kernel.inject('/demo')).json(), { index: true })
})

test('answers the home page when r names no classic controller', async () => {
  const res = await app().inject('/?r=nobody/here')
  assert.is(res.status, 200)
  assert.is(res.body, '<p>home</p>')
})

test.run()
