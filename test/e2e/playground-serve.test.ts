import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { root } from '../../playground/app.js'
import { servePlayground } from './serve-process.js'

// The playground as playground/README.md promises it from outside: a real process on a socket, its
// database migrated and seeded on start, its log in playground/var/log, SIGTERM exits 0.
const test = suite('playground-serve')

test('serves the seeded API, writes its log line and exits 0 on SIGTERM', async () => {
  const app = await servePlayground({ DATABASE_URL: 'pglite://memory', NODE_ENV: 'production' })
  const marker = `e2e-${randomBytes(6).toString('hex')}`
  try {
    const product = await fetch(`${app.url}/api/v1/products/1`, {
      headers: { accept: 'application/json', apikey: 'demo-api-key' },
    })
    assert.is(product.status, 200)
    const body = (await product.json()) as { id: number; sku: string }
    assert.is(body.id, 1)
    const logged = await fetch(`${app.url}/_demo/log?message=${marker}`)
    assert.equal(await logged.json(), { logged: true, message: marker })
  } finally {
    assert.is(await app.stop(), 0, app.output())
  }
  const lines = readFileSync(join(root, 'var', 'log', 'playground.log'), 'utf8')
    .trim()
    .split('\n')
  const line = lines
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .find((l) => l.msg === marker)
  assert.ok(line, `no log line with ${marker}`)
  assert.is(line.level, 'info')
  assert.is(line.app, 'playground')
})

test.run()
