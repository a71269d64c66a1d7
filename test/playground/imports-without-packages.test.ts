// The shipped playground (`fw/playground`) for a plugin author who installed none of pg-boss,
// csv-parse and pino (optional peers of fw): made absent in a child process, it boots and serves
// without the jobs plugin, its import page says what to install, an upload is refused with that
// line, and without a logger given it serves with the kernel's own logger (no logging plugin).
import { runWithoutPackages } from '../kernel/fixtures/without-packages.js'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite<{ outcomes: Map<string, { status: number; body: string }> }>(
  'playground imports without their packages',
)

test.before(async (context) => {
  const stdout = await runWithoutPackages(new URL('fixtures/imports-absent.ts', import.meta.url), [
    'pg-boss',
    'csv-parse',
    'pino',
  ])
  const lines = stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { name: string; status: number; body: string })
  context.outcomes = new Map(lines.map(({ name, ...o }) => [name, o]))
})

test('boots without the jobs plugin and serves the rest of the app', ({ outcomes }) => {
  assert.is(outcomes.get('jobs')?.status, 0)
  assert.equal(outcomes.get('ping'), { status: 200, body: '{"hello":"world","n":1}' })
})

test('without pino and without a logger given, the kernel logs and the app serves', ({
  outcomes,
}) => {
  const unlogged = outcomes.get('unlogged')!
  assert.is(unlogged.status, 200)
  assert.is((JSON.parse(unlogged.body) as { hello: string }).hello, 'world')
})

test('the import page says imports are off and names the install line', ({ outcomes }) => {
  const page = outcomes.get('page')!
  assert.is(page.status, 200)
  assert.match(page.body, 'Imports are off')
  assert.match(page.body, '<code>npm install pg-boss@^10.4.2 csv-parse@^7.0.3</code>')
  assert.not.match(page.body, 'id="import-form"')
})

test('an upload is refused with 503 and the same install line', ({ outcomes }) => {
  const upload = outcomes.get('upload')!
  assert.is(upload.status, 503)
  assert.equal(JSON.parse(upload.body), {
    error: 'imports_unavailable',
    message:
      'Product imports need pg-boss@^10.4.2 and csv-parse@^7.0.3: npm install pg-boss@^10.4.2 csv-parse@^7.0.3',
  })
})

test.run()
