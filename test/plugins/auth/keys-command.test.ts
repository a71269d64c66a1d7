import { createPrivateKey, createPublicKey } from 'node:crypto'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import * as assert from 'uvu/assert'
import { appSuite } from '../../fixtures/app-suite.js'
import { runCli } from 'fw/testing'
import { createOAuthApp, oauthConfig, runContributed } from './oauth-fixtures.js'

const test = appSuite('auth keys:generate', createOAuthApp)

function modeOf(file: string): number {
  return statSync(file).mode & 0o777
}

function bitsOf(file: string): number | undefined {
  return createPrivateKey(readFileSync(file, 'utf8')).asymmetricKeyDetails?.modulusLength
}

test('writes an RSA 2048 pair (PKCS#8 / SPKI PEM) to the configured paths, the private key 0600', async ({
  app,
}) => {
  assert.not.ok(existsSync(join(app.dir, 'keys')))
  const { code, stdout, stderr } = await runContributed(app.kernel, ['keys:generate'])
  assert.is(code, 0, stderr)
  assert.ok(stdout.includes(app.privateKey) && stdout.includes(app.publicKey), stdout)
  assert.not.ok(stdout.includes('PRIVATE KEY') || stderr.includes('PRIVATE KEY'))
  const priv = readFileSync(app.privateKey, 'utf8')
  const pub = readFileSync(app.publicKey, 'utf8')
  assert.ok(priv.startsWith('-----BEGIN PRIVATE KEY-----'))
  assert.ok(pub.startsWith('-----BEGIN PUBLIC KEY-----'))
  assert.not.ok(stdout.includes(priv.split('\n')[1]!))
  assert.is(bitsOf(app.privateKey), 2048)
  assert.is(modeOf(app.privateKey), 0o600)
  assert.is(modeOf(join(app.dir, 'keys')) & 0o077, 0, 'the new key directory is private')
  const derived = createPublicKey(priv).export({ type: 'spki', format: 'pem' })
  assert.is(derived, pub, 'one pair')
})

test('refuses to overwrite existing keys without --force: exit 1, one line naming --force', async ({
  app,
}) => {
  const before = readFileSync(app.privateKey, 'utf8')
  const { code, stdout, stderr } = await runContributed(app.kernel, ['keys:generate'])
  assert.is(code, 1)
  assert.is(stdout, '')
  assert.is(stderr.trim().split('\n').length, 1, stderr)
  assert.ok(stderr.includes('--force'), stderr)
  assert.is(readFileSync(app.privateKey, 'utf8'), before, 'unchanged')
})

test('--force replaces the pair (--bits 3072) and resets a loosened mode to 0600', async ({
  app,
}) => {
  const before = readFileSync(app.privateKey, 'utf8')
  chmodSync(app.privateKey, 0o644)
  const { code, stderr } = await runContributed(app.kernel, [
    'keys:generate',
    '--force',
    '--bits',
    '3072',
  ])
  assert.is(code, 0, stderr)
  assert.is.not(readFileSync(app.privateKey, 'utf8'), before)
  assert.is(bitsOf(app.privateKey), 3072)
  assert.is(modeOf(app.privateKey), 0o600)
})

test('refuses a --bits outside 2048/3072/4096', async ({ app }) => {
  const before = readFileSync(app.privateKey, 'utf8')
  const { code, stderr } = await runContributed(app.kernel, [
    'keys:generate',
    '--force',
    '--bits',
    '1024',
  ])
  assert.is(code, 1)
  assert.ok(stderr.includes('--bits'), stderr)
  assert.is(readFileSync(app.privateKey, 'utf8'), before)
})

test('fw keys:generate through the CLI writes to the FW_CONFIG paths', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'fw-oauth-cli-'))
  try {
    const env = { DATABASE_URL: 'pglite://memory', FW_CONFIG: oauthConfig(dir) }
    const first = await runCli(['keys:generate'], { env, timeoutMs: 60_000 })
    assert.is(first.code, 0, first.stderr)
    assert.ok(first.stdout.includes(join(dir, 'keys', 'private.key')), first.stdout)
    assert.not.ok(first.stdout.includes('PRIVATE KEY'))
    assert.is(modeOf(join(dir, 'keys', 'private.key')), 0o600)
    const again = await runCli(['keys:generate'], { env, timeoutMs: 60_000 })
    assert.is(again.code, 1)
    assert.ok(again.stderr.includes('--force'), again.stderr)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test.run()
