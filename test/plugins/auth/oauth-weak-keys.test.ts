// Signing keys under 2048 bits (plugins/auth/README.md "Weak keys stop the start"): the start is
// refused with FW_ERR_AUTH_SIGNING_KEY_WEAK naming the file and its size, in process and through
// `fw serve`; the health check says `down`. Never a 500 per token request.
import { spawn } from 'node:child_process'
import { generateKeyPairSync } from 'node:crypto'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

import { rejectedFwError } from '../../fixtures/thrown.js'
import { oauthConfig, withOAuthApp, type OAuthApp } from './oauth-fixtures.js'

const test = suite('auth weak signing keys')
const bin = fileURLToPath(new URL('../../../cli/bin.ts', import.meta.url))

function writePair(app: OAuthApp, bits: number, half: 'both' | 'public' = 'both'): void {
  const pair = generateKeyPairSync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
  mkdirSync(join(app.dir, 'keys'), { recursive: true })
  if (half === 'both') writeFileSync(app.privateKey, pair.privateKey, { mode: 0o600 })
  writeFileSync(app.publicKey, pair.publicKey)
}

test('a 1024-bit pair stops kernel.listen() with an error naming the file and the size', async () => {
  await withOAuthApp(async (app) => {
    writePair(app, 1024)
    const error = await rejectedFwError(() => app.kernel.listen(0, '127.0.0.1'))
    assert.is(error.code, 'FW_ERR_AUTH_SIGNING_KEY_WEAK')
    assert.match(error.message, `The private signing key ${app.privateKey} is a 1024-bit RSA key`)
    assert.match(error.message, 'fw keys:generate --force')
    // The health check agrees: a pair the server cannot sign with is down, not degraded.
    const report = await app.kernel.plugin('health').run()
    assert.is(report.checks.signing_keys!.status, 'down')
    assert.match(report.checks.signing_keys!.message, /1024 bits/)
  })
})

test('a weak public key alone is named too', async () => {
  await withOAuthApp(async (app) => {
    writePair(app, 2048)
    writePair(app, 1024, 'public')
    const error = await rejectedFwError(() => app.kernel.listen(0, '127.0.0.1'))
    assert.is(error.code, 'FW_ERR_AUTH_SIGNING_KEY_WEAK')
    assert.match(error.message, `The public signing key ${app.publicKey} is a 1024-bit RSA key`)
  })
})

test('a 2048-bit pair, or none yet, lets the server start', async () => {
  for (const bits of [2048, 0]) {
    await withOAuthApp(async (app) => {
      if (bits > 0) writePair(app, bits)
      const { url } = await app.kernel.listen(0, '127.0.0.1')
      assert.ok(url.startsWith('http://'), String(bits))
    })
  }
})

test('fw serve exits 1 with the message, before listening', async () => {
  await withOAuthApp(async (app) => {
    writePair(app, 1024)
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '-C', 'fw-source', bin, 'serve', '--port', '0'],
      {
        env: {
          ...process.env,
          FORCE_COLOR: '0',
          DATABASE_URL: 'pglite://memory',
          FW_APP_KEY: app.env.FW_APP_KEY,
          FW_CONFIG: oauthConfig(app.dir),
        },
      },
    )
    let out = ''
    child.stdout.on('data', (c: Buffer) => (out += c.toString()))
    child.stderr.on('data', (c: Buffer) => (out += c.toString()))
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve))
    assert.is(code, 1, out)
    assert.match(out, 'FW_ERR_AUTH_SIGNING_KEY_WEAK')
    assert.match(out, `${app.privateKey} is a 1024-bit RSA key`)
    assert.not.match(out, /listening on/)
  })
})

test.run()
