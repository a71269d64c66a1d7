import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

// The embedded database's driver (mikro-orm-pglite and PGlite itself) is loaded only by an app
// that uses PGlite: an app on PostgreSQL runs a statement without loading either. Run in a process
// of its own, on the database the suite runs on (`DATABASE_URL`: PostgreSQL; without it, PGlite),
// with the probe that reports which packages were loaded (ES modules included).
const test = suite('database driver loading')
const root = fileURLToPath(new URL('../../..', import.meta.url))
const probe = fileURLToPath(new URL('../../cli/fixtures/report-loaded.mjs', import.meta.url))
const child = fileURLToPath(new URL('open-database-child.ts', import.meta.url))
const PGLITE = ['mikro-orm-pglite', '@electric-sql/pglite']
/** Always loaded by opening the database: shows that the probe sees a package that is there. */
const PRESENT = '@mikro-orm/postgresql'

test('loads the PGlite driver only for an app on PGlite', () => {
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '-C', 'fw-source', '--import', probe, child],
    {
      cwd: root,
      encoding: 'utf8',
      env: { ...process.env, FW_REPORT_PACKAGES: [PRESENT, ...PGLITE].join(',') },
    },
  )
  assert.is(result.status, 0, result.stderr)
  assert.is(result.stdout.trim(), '[{"one":1}]')
  const line = result.stderr.split('\n').find((l) => l.startsWith('loaded: '))
  assert.ok(line, `no report from the probe: ${result.stderr}`)
  const onPglite = process.env.DATABASE_URL === undefined
  assert.equal(
    JSON.parse(line.slice('loaded: '.length)),
    onPglite ? [PRESENT, ...PGLITE] : [PRESENT],
  )
})

test.run()
