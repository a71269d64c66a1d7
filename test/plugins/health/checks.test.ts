import { generateKeyPairSync } from 'node:crypto'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  cacheCheck,
  diskSpaceCheck,
  memoryLimitCheck,
  redisCheck,
  type HealthResult,
} from 'fw/plugins/health'
import { signingKeysCheck } from 'fw/plugins/auth'
import { inject } from 'fw/testing'
import { closeHealthKernels, healthKernel } from './fixtures.js'

const test = suite('health checks')
const MB = 2 ** 20
const REDIS = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379'

const run = async (c: { run(): Promise<HealthResult> | HealthResult }): Promise<HealthResult> =>
  c.run()

test('disk_space is ok with free space, total and percentage used on the app root', async () => {
  const root = mkdtempSync(join(tmpdir(), 'fw-health-'))
  const r = await run(diskSpaceCheck(root, { degradedBelowMb: 0, downBelowMb: 0 }))
  assert.is(r.status, 'ok')
  assert.is(r.details!.path, root)
  assert.type(r.details!.free_bytes, 'number')
  assert.type(r.details!.used_percent, 'number')
  assert.match(r.message, /free of .* used\)/)
})

test('disk_space is degraded below its threshold and down below the lower one', async () => {
  const root = tmpdir()
  const degraded = await run(diskSpaceCheck(root, { degradedBelowMb: 1e12, downBelowMb: 0 }))
  assert.is(degraded.status, 'degraded')
  assert.match(degraded.message, /below/)
  const down = await run(diskSpaceCheck(root, { degradedBelowMb: 1e12, downBelowMb: 1e12 }))
  assert.is(down.status, 'down')
})

test('disk_space defaults: degraded below 500 MB, down below 100 MB', async () => {
  const r = await run(diskSpaceCheck(tmpdir()))
  assert.is(r.details!.degraded_below_bytes, 500 * MB)
  assert.is(r.details!.down_below_bytes, 100 * MB)
})

test('disk_space is down when the file system cannot be read', async () => {
  const r = await run(diskSpaceCheck('/nonexistent/fw-health'))
  assert.is(r.status, 'down')
  assert.match(r.message, /nonexistent/)
})

const sample =
  (used: number, limit: number, kind: 'heap' | 'rss' = 'heap') =>
  async () => ({ kind, used, limit })

test('memory_limit: ok below 75 %, degraded at 75 %, down at 90 %, figures in message and details', async () => {
  const ok = await run(memoryLimitCheck({ sample: sample(50 * MB, 100 * MB) }))
  assert.is(ok.status, 'ok')
  assert.match(ok.message, /50\.0 MB of 100\.0 MB \(50% of V8's heap limit\)/)
  assert.is(ok.details!.used_bytes, 50 * MB)
  assert.is(ok.details!.limit_bytes, 100 * MB)
  assert.is((await run(memoryLimitCheck({ sample: sample(75 * MB, 100 * MB) }))).status, 'degraded')
  assert.is((await run(memoryLimitCheck({ sample: sample(89 * MB, 100 * MB) }))).status, 'degraded')
  const down = await run(memoryLimitCheck({ sample: sample(90 * MB, 100 * MB, 'rss') }))
  assert.is(down.status, 'down')
  assert.match(down.message, /peak RSS .* cgroup limit/)
})

test('memory_limit reads the real process by default', async () => {
  const r = await run(memoryLimitCheck())
  assert.ok(['heap', 'rss'].includes(String(r.details!.source)))
  assert.ok(Number(r.details!.limit_bytes) > 0)
})

test('cache is ok on the memory store when no Redis is configured', async () => {
  const r = await run(cacheCheck())
  assert.is(r.status, 'ok')
  assert.is(r.message, 'memory store')
})

test('cache is degraded, naming both stores and a hint, when the configured Redis fell back', async () => {
  const r = await run(cacheCheck({ redisUrl: 'redis://:pw@127.0.0.1:1', connectTimeoutMs: 300 }))
  assert.is(r.status, 'degraded')
  assert.match(r.message, /redis/)
  assert.match(r.message, /memory store/)
  assert.match(r.message, /Redis server running/)
  assert.not.match(r.message, /:pw@/)
})

test('redis check is down with the error when unreachable, not a hang', async () => {
  const r = await run(redisCheck({ url: 'redis://127.0.0.1:1', connectTimeoutMs: 300 }))
  assert.is(r.status, 'down')
  assert.match(r.message, /unreachable/)
})

test('redis check is ok with latency against a live server (skipped when none)', async () => {
  const r = await run(redisCheck({ url: REDIS, connectTimeoutMs: 500 }))
  if (r.status === 'down') return console.log(`  (no Redis at ${REDIS}: ${r.message})`)
  assert.is(r.status, 'ok')
  assert.type(r.details!.latency_ms, 'number')
  const cache = await run(cacheCheck({ redisUrl: REDIS }))
  assert.is(cache.status, 'ok')
  assert.is(cache.details!.store, 'redis')
})

test('the redis check is not registered by default', async () => {
  const kernel = healthKernel({ diskSpace: {}, memoryLimit: {}, cache: {} })
  await kernel.boot()
  assert.equal(
    kernel
      .plugin('health')
      .checks()
      .map((c) => c.name),
    ['disk_space', 'memory_limit', 'cache'],
  )
})

// signing_keys, every condition plugins/health/README.md "Built-in checks" lists for it.
const dir = mkdtempSync(join(tmpdir(), 'fw-keys-'))
const pair = (bits: number) =>
  generateKeyPairSync('rsa', {
    modulusLength: bits,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
const strong = pair(2048)
const other = pair(2048)
const weak = pair(1024)
const file = (name: string, text: string): string => {
  const p = join(dir, name)
  writeFileSync(p, text)
  return p
}
const files = {
  priv2048: file('private-2048.key', strong.privateKey),
  pub2048: file('public-2048.key', strong.publicKey),
  otherPub: file('other-public.key', other.publicKey),
  priv1024: file('private-1024.key', weak.privateKey),
  pub1024: file('public-1024.key', weak.publicKey),
  truncated: file('truncated.key', strong.privateKey.slice(0, 200)),
  truncatedPub: file('truncated-public.key', strong.publicKey.slice(0, 80)),
}
const aDir = join(dir, 'a-directory')
mkdirSync(aDir)
const keys = (privateKey: string, publicKey: string, library?: () => Promise<unknown>) =>
  run(signingKeysCheck(healthKernel(), { privateKey, publicKey, ...(library ? { library } : {}) }))

test('signing_keys: matching pair of 2048 bits is ok with bits', async () => {
  const r = await keys(files.priv2048, files.pub2048)
  assert.is(r.status, 'ok')
  assert.is(r.details!.bits, 2048)
})

test('signing_keys: matching pair below 2048 bits is down (the server cannot sign with it)', async () => {
  const r = await keys(files.priv1024, files.pub1024)
  assert.is(r.status, 'down')
  assert.match(r.message, /1024 bits: the authorization server signs only with 2048 or more/)
  assert.is(r.details!.bits, 1024)
})

test('signing_keys: keys from different pairs are down', async () => {
  const r = await keys(files.priv2048, files.otherPub)
  assert.is(r.status, 'down')
  assert.match(r.message, /not a pair/)
})

test('signing_keys: a missing file is down and names which half', async () => {
  const priv = await keys(join(dir, 'nope.key'), files.pub2048)
  assert.is(priv.status, 'down')
  assert.match(priv.message, /^private key file missing/)
  const pub = await keys(files.priv2048, join(dir, 'nope.pub'))
  assert.is(pub.status, 'down')
  assert.match(pub.message, /^public key file missing/)
})

test('signing_keys: a directory is down and names which half', async () => {
  const r = await keys(files.priv2048, aDir)
  assert.is(r.status, 'down')
  assert.match(r.message, /^public key path is a directory/)
  assert.match((await keys(aDir, files.pub2048)).message, /^private key path is a directory/)
})

test('signing_keys: an unreadable file is down and names which half', async () => {
  // Root reads any file whatever its mode, so unreadability is simulated by a path through a file.
  const r = await keys(join(files.priv2048, 'inside'), files.pub2048)
  assert.is(r.status, 'down')
  assert.match(r.message, /^private key file unreadable/)
})

test('signing_keys: an unparseable (truncated) file is down', async () => {
  const r = await keys(files.truncated, files.pub2048)
  assert.is(r.status, 'down')
  assert.match(r.message, /^private key file unparseable/)
  const pub = await keys(files.priv2048, files.truncatedPub)
  assert.match(pub.message, /^public key file unparseable/)
})

test('signing_keys: the signing library missing is down', async () => {
  const r = await keys(
    files.priv2048,
    files.pub2048,
    () => import('fw-no-such-oauth-lib' as string),
  )
  assert.is(r.status, 'down')
  assert.match(r.message, /library is missing/)
})

test('signing_keys: paths default to config oauth.* under the app root', async () => {
  const kernel = healthKernel({}, { features: ['authorization-server'], auth: true })
  mkdirSync(join(kernel.root, 'var', 'keys'), { recursive: true })
  writeFileSync(join(kernel.root, 'var/keys/private.key'), strong.privateKey)
  writeFileSync(join(kernel.root, 'var/keys/public.key'), strong.publicKey)
  await kernel.boot()
  const report = await kernel.plugin('health').run()
  assert.is(report.checks.signing_keys!.status, 'ok')
  assert.is(
    report.checks.signing_keys!.details!.private_key,
    join(kernel.root, 'var/keys/private.key'),
  )
  // The IETF format names the measurement after the figure: `signing_keys:bits`, in bits.
  const res = await inject(kernel, {
    url: '/health/check',
    headers: { accept: 'application/health+json' },
  })
  const checks = (res.json() as { checks: Record<string, Record<string, unknown>[]> }).checks
  assert.equal(Object.keys(checks), ['signing_keys:bits'])
  const entry = checks['signing_keys:bits']![0]!
  assert.is(entry.componentId, 'signing_keys')
  assert.is(entry.componentType, 'component')
  assert.is(entry.status, 'pass')
  assert.is(entry.observedValue, 2048)
  assert.is(entry.observedUnit, 'bits')
})

test('signing_keys is registered by auth, only with the authorization-server feature', async () => {
  const has = async (kernel: ReturnType<typeof healthKernel>) => {
    await kernel.boot()
    return kernel
      .plugin('health')
      .checks()
      .some((c) => c.name === 'signing_keys')
  }
  assert.not.ok(await has(healthKernel({}, { auth: true })))
  assert.not.ok(await has(healthKernel({}, { features: ['authorization-server'] })))
  assert.ok(await has(healthKernel({}, { features: ['authorization-server'], auth: true })))
})

test.after(closeHealthKernels)

test.run()
