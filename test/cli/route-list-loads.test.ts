import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

// `fw route:list` on the playground, run as a user runs it (the CLI in a process of its own): it
// boots the app but loads only what listing routes uses. MikroORM's core (the entity schemas are
// built when the database opens), OpenTelemetry's API (no tracer provider is registered) and
// otpauth (loaded on the first TOTP secret or code) stay out; each costs ~5–100 ms of every command.
const test = suite('route:list loads')
const root = fileURLToPath(new URL('../..', import.meta.url))
const probe = fileURLToPath(new URL('fixtures/report-loaded.mjs', import.meta.url))
const HEAVY = ['@mikro-orm/core', '@opentelemetry/api', 'esprima', 'otpauth']
/** Always loaded (the CLI is built on it): shows that the probe sees a package that is there. */
const PRESENT = 'clipanion'

function routeList(): { status: number | null; stdout: string; loaded: string[] } {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '-C', 'fw-source', '--import', probe, 'cli/bin.ts', 'route:list', '--json'],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, FW_REPORT_PACKAGES: [PRESENT, ...HEAVY].join(','), FW_APP: undefined },
    },
  )
  const line = result.stderr.split('\n').find((l) => l.startsWith('loaded: '))
  assert.ok(line, `no report from the probe: ${result.stderr}`)
  return {
    status: result.status,
    stdout: result.stdout,
    loaded: JSON.parse(line.slice('loaded: '.length)) as string[],
  }
}

test('lists the playground routes bound to entities without loading MikroORM or OpenTelemetry', () => {
  const { status, stdout, loaded } = routeList()
  assert.is(status, 0)
  const paths = (JSON.parse(stdout) as { path: string }[]).map((r) => r.path)
  assert.ok(paths.includes('api/v1/products/{id}'), paths.join(', '))
  assert.equal(loaded, [PRESENT])
})

test.run()
