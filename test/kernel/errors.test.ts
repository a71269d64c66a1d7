import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  createKernel,
  defineErrors,
  errorRegistries,
  FwError,
  HttpError,
  silentLogger,
  type CodesOf,
} from 'fw'
import { databaseErrors } from 'fw/plugins/database'

const test = suite('errors')

const shopErrors = defineErrors(
  { owner: 'shop-test', title: 'shop (errors test)', intro: 'Raised by the test shop.' },
  {
    FW_ERR_SHOP_TEST_NO_STOCK: {
      when: 'A product is out of stock.',
      fix: 'Order fewer.',
      status: 409,
      error: 'no_stock',
      message: ({ sku, left }: { sku: string; left: number }) => `Only ${left} of ${sku} left.`,
    },
    FW_ERR_SHOP_TEST_CLOSED: {
      when: 'The shop is closed for maintenance.',
      fix: 'Come back later.',
      status: 503,
      message: 'The shop is closed.',
    },
    FW_ERR_SHOP_TEST_SETUP: {
      when: 'The shop has no currency.',
      fix: 'Set one.',
      message: 'The shop has no currency.',
    },
  },
)
declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof shopErrors> {}
}

test('builds an FwError with the registered message, status and cause', () => {
  const cause = new Error('disk full')
  const error = shopErrors.error('FW_ERR_SHOP_TEST_CLOSED', { cause })
  assert.instance(error, FwError)
  assert.is(error.code, 'FW_ERR_SHOP_TEST_CLOSED')
  assert.is(error.message, 'The shop is closed.')
  assert.is(error.status, 503)
  assert.is(error.cause, cause)
  assert.is(shopErrors.error('FW_ERR_SHOP_TEST_SETUP').status, 500)
})

test('builds the message from its typed argument', () => {
  assert.is(
    shopErrors.message('FW_ERR_SHOP_TEST_NO_STOCK', { sku: 'A-1', left: 2 }),
    'Only 2 of A-1 left.',
  )
  assert.is(
    shopErrors.error('FW_ERR_SHOP_TEST_NO_STOCK', { sku: 'A-1', left: 2 }).message,
    'Only 2 of A-1 left.',
  )
})

test('answers an httpError with its status, body, headers and code', async () => {
  const kernel = createKernel({ logger: silentLogger })
  kernel.router.post('orders', () => {
    throw shopErrors.httpError(
      'FW_ERR_SHOP_TEST_NO_STOCK',
      { sku: 'A-1', left: 0 },
      { headers: { 'x-stock': '0' } },
    )
  })
  const res = await kernel.inject({
    method: 'POST',
    url: '/orders',
    headers: { accept: 'application/json' },
  })
  assert.is(res.status, 409)
  assert.equal(res.json(), { error: 'no_stock', message: 'Only 0 of A-1 left.' })
  assert.is(res.headers['x-stock'], '0')
  const raised = res.events.find((e) => e.type === 'exception.raised')
  assert.is((raised?.data as { code?: string }).code, 'FW_ERR_SHOP_TEST_NO_STOCK')
  await kernel.close()
})

test("never shows an FwError's registered message to a client outside development", async () => {
  const kernel = createKernel({ logger: silentLogger, config: { development: false } })
  kernel.router.get('shop', () => {
    throw shopErrors.error('FW_ERR_SHOP_TEST_CLOSED')
  })
  const res = await kernel.inject({ url: '/shop', headers: { accept: 'application/json' } })
  assert.is(res.status, 503)
  assert.equal(res.json(), { error: 'unavailable' })
  await kernel.close()
})

test('a plugin registry builds the errors its plugin raises', () => {
  const error = databaseErrors.httpError('FW_ERR_DATABASE_UNAVAILABLE')
  assert.instance(error, HttpError)
  assert.is(error.status, 503)
  assert.equal(error.body, {
    error: 'unavailable',
    message: 'The database could not be reached; it is being retried.',
  })
})

test('refuses a code another owner defined, naming both', () => {
  try {
    defineErrors(
      { owner: 'thief', title: 'thief' },
      { FW_ERR_DATABASE_URL: { when: 'Never.', fix: 'None.', message: 'Stolen.' } },
    )
    assert.unreachable('defineErrors accepted a taken code')
  } catch (error) {
    assert.instance(error, FwError)
    assert.is((error as FwError).code, 'FW_ERR_ERRORS_DUPLICATE')
    assert.match((error as FwError).message, "defined by 'database' and by 'thief'")
  }
  assert.not.ok(errorRegistries().some((r) => r.owner === 'thief'))
})

test('lets the same owner define its registry again (its module loaded twice)', () => {
  const again = defineErrors(
    { owner: 'shop-test', title: 'shop (errors test)' },
    { FW_ERR_SHOP_TEST_SETUP: { when: 'Again.', fix: 'None.', message: 'Again.' } },
  )
  assert.is(again.error('FW_ERR_SHOP_TEST_SETUP').message, 'Again.')
  assert.is(errorRegistries().filter((r) => r.owner === 'shop-test').length, 1)
})

test('kernel errors carry their registered codes and messages', async () => {
  const kernel = createKernel({ logger: silentLogger })
  kernel.router.get('x', () => 'x').middleware('nope')
  try {
    await kernel.boot()
    assert.unreachable('boot accepted unknown middleware')
  } catch (error) {
    assert.is((error as FwError).code, 'FW_ERR_MIDDLEWARE_UNKNOWN')
    assert.is(
      (error as FwError).message,
      "Route 'x' uses middleware 'nope', which is not registered. Register it with kernel.middleware('nope', fn) or remove it from the route.",
    )
  }
  await kernel.close()
})

test.run()
