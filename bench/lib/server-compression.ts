// The server bench/compression.ts loads: fw with compression on (the default), answering ~10 KB
// of HTML and of JSON rendered anew per request (the same content each time), ~10 KB of HTML that
// differs on every request (so never compressed from the cache), and a ~10 KB static script.
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createKernel, html, json, silentLogger } from 'fw'
import { announce } from './server-ipc.js'

/** ~10 KB of rows, as a list page or an API would answer them. */
export const ROWS = Array.from({ length: 125 }, (_, i) => ({
  id: i + 1,
  name: `Desk lamp model ${i + 1}`,
  sku: `LAMP-${String(1000 + i)}`,
  price: 19.5 + i,
  stock: (i * 7) % 23,
}))

function page(extra: string): string {
  const rows = ROWS.map(
    (r) => `<tr><td>${r.id}</td><td>${r.name}</td><td>${r.sku}</td><td>${r.price}</td></tr>`,
  )
  return `<!doctype html><html><head><title>Products</title></head><body><table>${rows.join('')}</table>${extra}</body></html>`
}

const kernel = createKernel({ logger: silentLogger, env: {}, root: '/nonexistent/fw-bench' })
let n = 0
kernel.router.get('html', () => html(page('')))
kernel.router.get('json', () => json({ data: ROWS }))
kernel.router.get('html-unique', () => html(page(`<!-- ${++n} -->`)))
const dir = mkdtempSync(join(tmpdir(), 'fw-bench-static-'))
writeFileSync(join(dir, 'app.js'), `window.rows = ${JSON.stringify(ROWS, null, 1)};\n`)
kernel.static('static', dir, { maxAge: 3600 })
const { port } = await kernel.listen(0, '127.0.0.1')
announce(port, () => void kernel.close(100))
