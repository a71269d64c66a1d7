// The injected API prefix (plugins/api/README.md "The injected API prefix"): `api.prefix` puts
// `<meta name="fw-api-prefix">` into every HTML page once, touches nothing else, and a value that
// is not a path is refused when the plugin registers.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { html } from 'fw'
import api from 'fw/plugins/api'
import { createTestKernel } from 'fw/testing'
import { rejectedFwError } from '../../fixtures/thrown.js'

const test = suite('api: the injected API prefix')

const checkKey = async () => undefined

function app(prefix: string) {
  const kernel = createTestKernel({
    config: { api: { prefix } },
    plugins: [[api, { checkKey }]],
  })
  kernel.router.get('page', () =>
    html('<!doctype html><html><head><title>t</title></head><body>x</body></html>'),
  )
  kernel.router.get('own', () =>
    html('<html><head><meta name="fw-api-prefix" content="/v9"></head><body></body></html>'),
  )
  kernel.router.get('fragment', () => html('<p>no head</p>'))
  kernel.router.get('data', () => ({ ok: true }))
  return kernel
}

test('puts the prefix before </head> of HTML pages, once, and nowhere else', async () => {
  const kernel = app('/api/v1/')
  await kernel.boot()
  const page = await kernel.inject({ url: '/page' })
  assert.is(
    page.body,
    '<!doctype html><html><head><title>t</title><meta name="fw-api-prefix" content="/api/v1">\n</head><body>x</body></html>',
  )
  assert.match(
    (await kernel.inject({ url: '/own' })).body,
    '<meta name="fw-api-prefix" content="/v9"></head>',
  )
  assert.not.match((await kernel.inject({ url: '/own' })).body, '/api/v1')
  assert.is((await kernel.inject({ url: '/fragment' })).body, '<p>no head</p>')
  assert.equal((await kernel.inject({ url: '/data' })).json(), { ok: true })
})

test('without api.prefix no page changes', async () => {
  const kernel = app('')
  await kernel.boot()
  assert.not.match((await kernel.inject({ url: '/page' })).body, 'fw-api-prefix')
})

for (const bad of ['api/v1', '/api v1', '/api/"><script>', 'https://x.example/api']) {
  test(`refuses api.prefix ${JSON.stringify(bad)} when the plugin registers`, async () => {
    const error = await rejectedFwError(() => app(bad).boot())
    assert.match(error.message, 'api.prefix')
    assert.match(error.message, 'give a path such as /api/v1')
  })
}

test.run()
