import * as assert from 'uvu/assert'
import { appSuite } from '../../fixtures/app-suite.js'
import { XMLParser } from 'fast-xml-parser'
import { negotiate, toXml } from 'fw/plugins/api'
import { DEMO_KEY, playgroundApp } from './fixtures.js'

// Content negotiation of the API pipeline: JSON by default, XML when Accept prefers it.
const test = appSuite('api content type', playgroundApp)

const parser = new XMLParser({ parseTagValue: false, isArray: (name) => name === 'item' })

/** What the XML of a JSON value parses back to: strings, arrays as `{item: [...]}`, null as ''. */
function asXmlData(value: unknown): unknown {
  if (value === null || value === undefined) return ''
  if (Array.isArray(value)) return value.length === 0 ? '' : { item: value.map(asXmlData) }
  if (typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, asXmlData(v)]),
    )
  return String(value)
}

function parse(xml: string): unknown {
  assert.ok(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>'), xml.slice(0, 80))
  return (parser.parse(xml) as { response: unknown }).response
}

test('negotiate: q-values decide; a tie or no Accept is JSON', () => {
  const cases: [string | undefined, 'json' | 'xml'][] = [
    [undefined, 'json'],
    ['', 'json'],
    ['*/*', 'json'],
    ['application/json', 'json'],
    ['application/xml', 'xml'],
    ['application/xml, application/json', 'json'],
    ['application/json;q=0.5, application/xml', 'xml'],
    ['application/xml;q=0.4, application/json;q=0.9', 'json'],
    ['application/xml;q=0.9, */*;q=0.1', 'xml'],
    ['application/xml;q=0', 'json'],
    ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'xml'],
    ['application/*, application/json;q=0.2', 'xml'],
  ]
  for (const [accept, expected] of cases) assert.is(negotiate(accept), expected, String(accept))
})

test('toXml escapes text and makes element names of any key', () => {
  const data = parse(toXml({ 'a b': '<&>', '1st': 1, 'categories.title': 'x', list: [] }))
  assert.equal(data, { a_b: '<&>', _1st: '1', 'categories.title': 'x', list: '' })
})

test('JSON by default, with charset', async ({ app }) => {
  const res = await app.kernel.inject({ url: '/api/v1/products/1', headers: { apikey: DEMO_KEY } })
  assert.is(res.headers['content-type'], 'application/json; charset=utf-8')
  assert.match(String(res.headers.vary), /\bAccept\b/)
})

test('XML when asked: parses as XML and carries the same data as the JSON', async ({ app }) => {
  for (const url of [
    '/api/v1/products/1',
    '/api/v1/products?per_page=3&fields=id,name,sku,price,tags,notes,title',
    '/api/v2/products?per_page=2',
  ]) {
    const json = await app.kernel.inject({ url, headers: { apikey: DEMO_KEY } })
    const xml = await app.kernel.inject({
      url,
      headers: { apikey: DEMO_KEY, accept: 'application/xml' },
    })
    assert.is(xml.status, 200, url)
    assert.is(xml.headers['content-type'], 'application/xml; charset=utf-8')
    assert.equal(parse(xml.body), asXmlData(json.json()), url)
  }
})

test('errors of the inner middleware and the handler are negotiated too', async ({ app }) => {
  const missing = await app.kernel.inject({
    url: '/api/v1/products/1',
    headers: { accept: 'application/xml' },
  })
  assert.is(missing.status, 403)
  assert.is(missing.headers['content-type'], 'application/xml; charset=utf-8')
  assert.equal(parse(missing.body), {
    status: '403',
    statusmessage: 'Forbidden',
    message: 'An API key is required.',
    error: 'APIKeyMissing',
  })
  const invalid = await app.kernel.inject({
    method: 'POST',
    url: '/api/v1/products',
    headers: { apikey: DEMO_KEY, accept: 'application/xml' },
    body: { name: '', sku: 'X', price: -1, stock: 1 },
  })
  assert.is(invalid.status, 422)
  assert.is(invalid.headers['content-type'], 'application/xml; charset=utf-8')
  const errors = (parse(invalid.body) as { errors: Record<string, unknown> }).errors
  assert.ok('name' in errors && 'price' in errors, invalid.body)
  const notFound = await app.kernel.inject({
    url: '/api/v1/products/999999',
    headers: { apikey: DEMO_KEY, accept: 'application/xml' },
  })
  assert.is(notFound.status, 404)
  assert.is(notFound.headers['content-type'], 'application/xml; charset=utf-8')
})

test('the content type never answers early: a 204 stays empty', async ({ app }) => {
  const res = await app.kernel.inject({
    method: 'DELETE',
    url: '/api/v1/products/999',
    headers: { apikey: DEMO_KEY, accept: 'application/xml' },
  })
  assert.is(res.status, 204)
  assert.is(res.body, '')
  assert.is(res.headers['content-type'], undefined)
})

test.run()
