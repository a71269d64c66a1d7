import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { runWithoutPackages } from './fixtures/without-packages.js'

// fw's optional peer dependencies (package.json peerDependenciesMeta), made absent in a child
// process the way an app that did not install them has them: a feature that needs one fails with
// FW_ERR_PACKAGE_MISSING naming the package and its install line; the plugins without those
// features work.
const test = suite('optional-package')

const fixtures = new URL('./fixtures/', import.meta.url)
const ABSENT = [
  '@opentelemetry/api',
  '@opentelemetry/core',
  'prom-client',
  'ioredis',
  'fast-xml-parser',
  'otpauth',
  'pg-boss',
  'pino',
]

interface Outcome {
  feature: string
  code?: string
  message: string
}

async function run(features: string[]): Promise<Map<string, Outcome>> {
  const stdout = await runWithoutPackages(
    new URL('optional-features.ts', fixtures),
    ABSENT,
    features,
  )
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Outcome)
  return new Map(lines.map((o) => [o.feature, o]))
}

let outcomes: Map<string, Outcome>
test.before(async () => {
  outcomes = await run(['plain', 'metrics', 'tracing', 'redis', 'xml', 'jobs', 'logging'])
})

test('the telemetry, health and api plugins serve without their optional packages', () => {
  assert.equal(outcomes.get('plain'), { feature: 'plain', message: '200' })
})

// Each fails with FW_ERR_PACKAGE_MISSING, its message naming the package.
const MISSING = [
  {
    feature: 'metrics',
    name: 'metrics without prom-client fail at boot naming it',
    message: "npm install prom-client@'^15",
  },
  {
    feature: 'tracing',
    name: 'tracing without OpenTelemetry fails at boot naming its API package',
    message: 'The package @opentelemetry/api is not installed',
  },
  {
    feature: 'xml',
    name: 'an XML reply without fast-xml-parser fails naming it',
    message: 'npm install fast-xml-parser@',
  },
]

for (const { feature, name, message } of MISSING) {
  test(name, () => {
    const o = outcomes.get(feature)
    assert.is(o?.code, 'FW_ERR_PACKAGE_MISSING')
    assert.match(o!.message, message)
  })
}

test('a Redis check without ioredis reports down with the install line', () => {
  assert.match(outcomes.get('redis')!.message, 'npm install ioredis@')
})

// Loaded where it is first needed (the migration of the queue's tables), not at boot: an app's
// `fw route:list` does not pay for it. The migration's failure carries the install line.
test('the jobs plugin without pg-boss stops its migration naming it', () => {
  const o = outcomes.get('jobs')
  assert.match(o!.message, 'The package pg-boss is not installed, and the jobs plugin needs it')
  assert.match(o!.message, "npm install pg-boss@'^10")
})

test('the logging plugin without pino fails at boot with the install line', () => {
  const o = outcomes.get('logging')
  assert.is(o?.code, 'FW_ERR_PACKAGE_MISSING')
  assert.match(o!.message, 'The package pino is not installed, and the logging plugin needs it')
  assert.match(o!.message, "npm install pino@'^10")
})

test.run()
