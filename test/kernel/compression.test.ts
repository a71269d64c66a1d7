import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request, type IncomingHttpHeaders } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { html, json, send, text, type Kernel, type UserConfig } from 'fw'
import { createTestKernel } from 'fw/testing'

const test = suite('http compression')

/** About 12 KB of JSON and HTML: over the default threshold (1 KB). */
const ROWS = Array.from({ length: 150 }, (_, i) => ({
  id: i,
  name: `Desk lamp ${i}`,
  stock: i % 7,
}))
const PAGE = `<!doctype html><title>t</title><ul>${ROWS.map((r) => `<li>${r.name}</li>`).join('')}</ul>`
const SCRIPT = new TextEncoder().encode(`console.log(${JSON.stringify(ROWS)})`)
const BIG = 'x'.repeat(300_000)
/** Bodies of one length that differ only in their last character, rendered anew per request. */
const sameLength = (n: number): string => `${JSON.stringify(ROWS)}${n % 10}`

let dir: string

test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'fw-compression-'))
  writeFileSync(join(dir, 'app.js'), `window.rows = ${JSON.stringify(ROWS)}`)
  writeFileSync(join(dir, 'index.html'), PAGE)
  writeFileSync(join(dir, 'small.css'), 'body{margin:0}')
  writeFileSync(join(dir, 'logo.png'), Buffer.alloc(4096, 7))
})
test.after(() => rmSync(dir, { recursive: true, force: true }))

function app(config: UserConfig = {}): Kernel {
  const kernel = createTestKernel({ config })
  const r = kernel.router
  r.get('rows', () => json(ROWS))
  r.get('page', () => html(PAGE))
  r.get('small', () => json({ ok: true }))
  r.get('script', () => send(SCRIPT, 'text/javascript; charset=utf-8'))
  r.get('png', () => send(Buffer.alloc(4096, 1), 'image/png'))
  r.get('encoded', () => send(Buffer.alloc(4096, 1), 'text/plain').header('content-encoding', 'br'))
  r.get('no-transform', () => json(ROWS).header('cache-control', 'no-transform'))
  r.get('varies', () => json(ROWS).header('vary', 'Accept'))
  r.get('big', () => text(BIG))
  r.get('same-length/{n}', (ctx) => text(sameLength(Number(ctx.params.n))))
  kernel.static('files', dir)
  return kernel
}

interface Got {
  status: number
  headers: IncomingHttpHeaders
  /** The body as it came, compressed or not. */
  raw: Buffer
  /** The body decoded by its `Content-Encoding`. */
  body: string
}

/** A request with node:http, which (unlike fetch) hands over the body as it came. */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Got> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => {
        const raw = Buffer.concat(chunks)
        const coding = res.headers['content-encoding']
        let decoded = raw
        try {
          if (coding === 'br') decoded = brotliDecompressSync(raw)
          if (coding === 'gzip') decoded = gunzipSync(raw)
        } catch {
          // Not compressed by fw (a route's own Content-Encoding): left as it came.
        }
        resolve({ status: res.statusCode!, headers: res.headers, raw, body: decoded.toString() })
      })
    })
    req.on('error', reject)
    req.end()
  })
}

async function serving<T>(config: UserConfig, run: (url: string) => Promise<T>): Promise<T> {
  const kernel = app(config)
  const { url } = await kernel.listen(0, '127.0.0.1')
  try {
    return await run(url)
  } finally {
    await kernel.close(500)
  }
}

test('the coding follows Accept-Encoding and its q-values; the body and its length are right', async () => {
  await serving({}, async (url) => {
    const cases: [string | undefined, string | undefined][] = [
      ['br', 'br'],
      ['gzip, deflate, br', 'br'],
      ['gzip', 'gzip'],
      ['x-gzip', 'gzip'],
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['br;q=0, gzip;q=0.1', 'gzip'],
      ['br;q=0, gzip;q=0', undefined],
      ['identity', undefined],
      ['deflate', undefined],
      ['*', 'br'],
      ['*;q=0.2, gzip;q=0.5', 'gzip'],
      ['*;q=0', undefined],
      ['', undefined],
      [undefined, undefined],
    ]
    for (const path of ['/rows', '/page']) {
      const plain = await get(`${url}${path}`)
      for (const [accept, coding] of cases) {
        const what = `${path} with ${accept ?? 'no Accept-Encoding'}`
        const res = await get(
          `${url}${path}`,
          accept === undefined ? {} : { 'accept-encoding': accept },
        )
        assert.is(res.status, 200, what)
        assert.is(res.headers['content-encoding'], coding, what)
        assert.is(res.headers.vary, 'Accept-Encoding', what)
        assert.is(Number(res.headers['content-length']), res.raw.byteLength, what)
        assert.is(res.body, plain.body, what)
        if (coding !== undefined) assert.ok(res.raw.byteLength < plain.raw.byteLength / 3, what)
      }
    }
  })
})

test('not compressed: under the threshold, images, an encoded body, no-transform', async () => {
  await serving({}, async (url) => {
    const br = { 'accept-encoding': 'br, gzip' }
    const small = await get(`${url}/small`, br)
    assert.is(small.headers['content-encoding'], undefined)
    assert.is(small.headers.vary, undefined, 'the representation cannot differ: no Vary')
    assert.is((await get(`${url}/png`, br)).headers['content-encoding'], undefined)
    assert.is((await get(`${url}/png`, br)).headers.vary, undefined)
    const encoded = await get(`${url}/encoded`, br)
    assert.is(encoded.headers['content-encoding'], 'br')
    assert.is(encoded.raw.byteLength, 4096, 'passed through as it was')
    const kept = await get(`${url}/no-transform`, br)
    assert.is(kept.headers['content-encoding'], undefined)
    assert.is(Number(kept.headers['content-length']), JSON.stringify(ROWS).length)
  })
})

test("Vary joins the reply's own; HEAD says the GET's coding and length without a body", async () => {
  await serving({}, async (url) => {
    const varies = await get(`${url}/varies`, { 'accept-encoding': 'gzip' })
    assert.is(varies.headers.vary, 'Accept, Accept-Encoding')
    assert.is(varies.headers['content-encoding'], 'gzip')
    const head = await get(`${url}/rows`, { 'accept-encoding': 'br' }, 'HEAD')
    assert.is(head.status, 200)
    assert.is(head.headers['content-encoding'], 'br')
    assert.is(head.headers.vary, 'Accept-Encoding')
    const get2 = await get(`${url}/rows`, { 'accept-encoding': 'br' })
    assert.is(head.headers['content-length'], String(get2.raw.byteLength), "the GET's coded length")
    assert.is(head.raw.byteLength, 0)
    const plainHead = await get(`${url}/rows`, {}, 'HEAD')
    assert.is(plainHead.headers['content-length'], String(JSON.stringify(ROWS).length))
  })
})

test('a large body is compressed whole (off the event loop); the same bytes twice, alike', async () => {
  await serving({}, async (url) => {
    for (const coding of ['br', 'gzip']) {
      const big = await get(`${url}/big`, { 'accept-encoding': coding })
      assert.is(big.headers['content-encoding'], coding)
      assert.is(big.body, BIG)
    }
    const first = await get(`${url}/script`, { 'accept-encoding': 'br' })
    const again = await get(`${url}/script`, { 'accept-encoding': 'br' })
    assert.is(first.headers['content-encoding'], 'br')
    assert.ok(first.raw.equals(again.raw))
    assert.is(first.body, new TextDecoder().decode(SCRIPT))
  })
})

test('bodies of one length, each rendered anew, come back each as itself', async () => {
  await serving({}, async (url) => {
    for (let round = 0; round < 2; round++)
      for (let n = 0; n < 10; n++)
        for (const coding of ['br', 'gzip']) {
          const got = await get(`${url}/same-length/${n}`, { 'accept-encoding': coding })
          assert.is(got.headers['content-encoding'], coding)
          assert.is(got.body, sameLength(n), `body ${n}, ${coding}, round ${round}`)
        }
  })
})

test('http.compression: off, or another threshold', async () => {
  await serving({ http: { compression: { enabled: false } } }, async (url) => {
    for (const path of ['/rows', '/files/app.js']) {
      const res = await get(`${url}${path}`, { 'accept-encoding': 'br, gzip' })
      assert.is(res.headers['content-encoding'], undefined, path)
      assert.is(res.headers.vary, undefined, path)
    }
  })
  await serving({ http: { compression: { threshold: 10 } } }, async (url) => {
    const res = await get(`${url}/small`, { 'accept-encoding': 'gzip' })
    assert.is(res.headers['content-encoding'], 'gzip')
    assert.is(res.body, '{"ok":true}')
  })
})

test('static files: compressed once, with an ETag of their own, 304 and Vary right', async () => {
  await serving({}, async (url) => {
    const plain = await get(`${url}/files/app.js`)
    assert.is(plain.headers['content-encoding'], undefined)
    assert.is(plain.headers.vary, 'Accept-Encoding')
    for (const coding of ['br', 'gzip']) {
      const res = await get(`${url}/files/app.js`, { 'accept-encoding': coding })
      assert.is(res.status, 200)
      assert.is(res.headers['content-encoding'], coding)
      assert.is(res.headers.vary, 'Accept-Encoding')
      assert.is(res.headers['x-content-type-options'], 'nosniff')
      assert.match(String(res.headers['content-type']), 'javascript')
      assert.is(Number(res.headers['content-length']), res.raw.byteLength)
      assert.is(res.body, plain.body)
      const etag = String(res.headers.etag)
      assert.match(etag, `-${coding}"`)
      assert.is.not(etag, plain.headers.etag)
      const again = await get(`${url}/files/app.js`, {
        'accept-encoding': coding,
        'if-none-match': etag,
      })
      assert.is(again.status, 304)
      assert.is(again.headers.vary, 'Accept-Encoding')
      assert.is(again.raw.byteLength, 0)
    }
    // The identity ETag revalidates the identity file (sirv's), also with Vary.
    const revalidated = await get(`${url}/files/app.js`, {
      'if-none-match': String(plain.headers.etag),
    })
    assert.is(revalidated.status, 304)
    assert.is(revalidated.headers.vary, 'Accept-Encoding')
    const index = await get(`${url}/files/`, { 'accept-encoding': 'br' })
    assert.is(index.headers['content-encoding'], 'br')
    assert.is(index.body, PAGE)
    const head = await get(`${url}/files/app.js`, { 'accept-encoding': 'br' }, 'HEAD')
    assert.is(head.headers['content-encoding'], 'br')
    assert.is(head.raw.byteLength, 0)
    const range = await get(`${url}/files/app.js`, { 'accept-encoding': 'br', range: 'bytes=0-9' })
    assert.is(range.status, 206)
    assert.is(range.headers['content-encoding'], undefined)
    for (const name of ['small.css', 'logo.png']) {
      const res = await get(`${url}/files/${name}`, { 'accept-encoding': 'br' })
      assert.is(res.status, 200, name)
      assert.is(res.headers['content-encoding'], undefined, name)
      assert.is(res.headers.vary, undefined, name)
    }
  })
})

test.run()
