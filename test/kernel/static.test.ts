import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTestKernel } from 'fw/testing'

const test = suite('static')

test('serves files from a static mount over the socket, and routes everything else', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-static-'))
  writeFileSync(join(dir, 'app.css'), 'body{color:red}')
  const kernel = createTestKernel()
  kernel.static('assets', dir)
  kernel.router.get('assets-info', () => ({ ok: true }))
  const { url } = await kernel.listen(0, '127.0.0.1')
  try {
    const css = await fetch(`${url}/assets/app.css`)
    assert.is(css.status, 200)
    assert.is(await css.text(), 'body{color:red}')
    assert.match(String(css.headers.get('content-type')), 'text/css')
    const missing = await fetch(`${url}/assets/nope.css`, {
      headers: { accept: 'application/json' },
    })
    assert.is(missing.status, 404)
    assert.equal(await missing.json(), { error: 'not_found' })
    const routed = await fetch(`${url}/assets-info?x=1`)
    assert.equal(await routed.json(), { ok: true })
    const traversal = await fetch(`${url}/assets/..%2f..%2fetc%2fpasswd`)
    assert.is(traversal.status, 404)
  } finally {
    await kernel.close()
  }
})

test.run()
