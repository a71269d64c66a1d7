// Browser tools against the playground in development (plugins/debug/README.md "What an annotated
// response carries", CORS): a single-page app served from a second port (as a Vite dev server
// would serve it) imports the toolbar module from fw and reads the Server-Timing of fw's responses
// (CORS for its origin, Timing-Allow-Origin); the boot phases carry a duration once per process; a
// HEAD carries the headers a GET would, Content-Length included.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import * as assert from 'uvu/assert'
import { browserSuite, withPage } from './harness.js'

const test = browserSuite<{ spa: Server; spaUrl: string }>(
  'browser: a single-page app on another port',
)

/** The SPA's page: imports fw's toolbar module, fetches a route of fw, reads its timings. */
function spaPage(fw: string): string {
  return `<!doctype html><html><head><title>spa</title></head><body><script type="module">
const fw = ${JSON.stringify(fw)}
try {
  const mod = await import(fw + '/_fw/debugbar.mjs')
  const res = await fetch(fw + '/_demo/queries?n=2', { headers: { accept: 'application/json' } })
  const body = await res.json()
  mod.record('GET', '/_demo/queries?n=2', res.status, body._debug)
  await new Promise((r) => setTimeout(r, 200))
  const entry = performance.getEntriesByName(fw + '/_demo/queries?n=2').at(-1)
  window.result = {
    exports: Object.keys(mod).sort(),
    status: res.status,
    annotated: body._debug !== undefined,
    timing: entry ? entry.serverTiming.map((t) => t.name) : null,
  }
} catch (error) {
  window.result = { error: String(error) }
}
</script></body></html>`
}

test.before(async (context) => {
  context.spa = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(spaPage(context.pg.url))
  })
  await new Promise<void>((resolve) => context.spa.listen(0, '127.0.0.1', resolve))
  context.spaUrl = `http://127.0.0.1:${(context.spa.address() as AddressInfo).port}`
})
test.after(async ({ spa }) => {
  await new Promise((resolve) => spa.close(resolve))
})

test('an app on another port imports the toolbar module and reads the timings', async ({
  browser,
  spaUrl,
}) => {
  await withPage(browser, async (page, problems) => {
    await page.goto(`${spaUrl}/`)
    await page.waitForFunction(() => (window as { result?: unknown }).result !== undefined)
    const result = await page.evaluate(() => (window as { result?: unknown }).result)
    assert.equal(result, {
      exports: ['record', 'reportError'],
      status: 200,
      annotated: true,
      timing: (result as { timing: string[] }).timing,
    })
    const timing = (result as { timing: string[] | null }).timing
    assert.ok(timing !== null && timing.includes('db') && timing.includes('total'), String(timing))
    assert.equal(problems, [])
    // The module made its bar on the SPA's page, with the request it was given.
    await page.locator('fw-debugbar').waitFor({ state: 'attached' })
  })
})

test('CORS for the request origin in development: assets and annotated responses', async ({
  pg,
  spaUrl,
}) => {
  for (const path of ['/_fw/debugbar.mjs', '/_fw/debugbar.js', '/_demo/ping']) {
    const res = await fetch(pg.url + path, { headers: { origin: spaUrl } })
    assert.is(res.status, 200, path)
    assert.is(res.headers.get('access-control-allow-origin'), spaUrl, path)
    assert.is(res.headers.get('timing-allow-origin'), spaUrl, path)
    assert.match(String(res.headers.get('vary')), /Origin/, path)
  }
  // The hashed module sirv serves, too.
  const entry = await (await fetch(`${pg.url}/_fw/debugbar.mjs`)).text()
  const hashed = /from '\.\/([^']+)'/.exec(entry)![1]!
  const module = await fetch(`${pg.url}/_fw/${hashed}`, { headers: { origin: spaUrl } })
  assert.is(module.status, 200)
  assert.is(module.headers.get('access-control-allow-origin'), spaUrl)
  assert.is(module.headers.get('timing-allow-origin'), spaUrl)
  // No Origin, no CORS headers.
  const plain = await fetch(`${pg.url}/_demo/ping`)
  assert.is(plain.headers.get('access-control-allow-origin'), null)
})

test('the boot phases carry their duration once; afterwards desc="boot"', async ({ pg }) => {
  // Earlier tests were the first annotated responses of this kernel.
  const res = await fetch(`${pg.url}/_demo/ping`)
  const timing = String(res.headers.get('server-timing'))
  assert.match(timing, /bootstrap;desc="boot"/)
  assert.not.match(timing, /bootstrap;dur=/)
  assert.match(timing, /total;dur=/)
})

test('HEAD carries the headers GET does, Content-Length included, in development', async ({
  pg,
}) => {
  // Plain, and compressed (the page is over the threshold): HEAD says the GET's coding and length.
  for (const [path, coding] of [
    ['/_demo/ping', 'identity'],
    ['/_demo/text', 'identity'],
    ['/', 'identity'],
    ['/', 'br'],
  ] as const) {
    const headers = { 'accept-encoding': coding }
    const get = await fetch(pg.url + path, { headers })
    const getBody = await get.arrayBuffer()
    const head = await fetch(pg.url + path, { method: 'HEAD', headers })
    assert.is(head.status, get.status, path)
    const names = (r: Response) =>
      [...r.headers.keys()].filter((n) => n !== 'date' && n !== 'keep-alive').sort()
    assert.equal(names(head), names(get), path)
    // fetch decodes a compressed body: its length is the header's only when it came plain.
    if (coding === 'identity')
      assert.is(Number(get.headers.get('content-length')), getBody.byteLength, path)
    else assert.is(get.headers.get('content-encoding'), coding, path)
    // Both computed their length; the debug payload's figures (times, memory) differ between
    // two requests by a few digits, so the two lengths are close, not equal (a production kernel's
    // are equal: test/kernel/http.test.ts).
    const [h, g] = [head, get].map((r) => Number(r.headers.get('content-length')))
    assert.ok(
      h! > 0 && Math.abs(h! - g!) <= Math.max(64, g! / 100),
      `${path}: HEAD ${h} vs GET ${g}`,
    )
    for (const name of ['content-type', 'cache-control', 'vary'])
      assert.is(head.headers.get(name), get.headers.get(name), `${path} ${name}`)
  }
})

test.run()
