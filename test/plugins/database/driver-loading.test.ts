import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

// The embedded database's driver (mikro-orm-pglite and PGlite itself) is loaded only by an app
// that uses PGlite: an app on PostgreSQL runs a statement without loading either. Run in a process
// of its own, on the database the suite runs on (`DATABASE_URL`: PostgreSQL; without it, PGlite).
const test = suite('database driver loading')
const root = fileURLToPath(new URL('../../..', import.meta.url))
const fixtures = fileURLToPath(new URL('fixtures-loaded/', import.meta.url))

function openAndQuery(): { packages: Set<string>; stdout: string } {
  const dir = mkdtempSync(join(tmpdir(), 'fw-imports-'))
  const report = join(dir, 'imports.txt')
  try {
    const result = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '-C',
        'fw-source',
        '--import',
        join(fixtures, 'report-imports.mjs'),
        join(fixtures, 'open-database.ts'),
      ],
      { cwd: root, encoding: 'utf8', env: { ...process.env, FW_REPORT_IMPORTS: report } },
    )
    assert.is(result.status, 0, result.stderr)
    const packages = new Set(
      readFileSync(report, 'utf8')
        .split('\n')
        .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
        .filter((name): name is string => name !== undefined),
    )
    return { packages, stdout: result.stdout.trim() }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

test('loads the PGlite driver only for an app on PGlite', () => {
  const { packages, stdout } = openAndQuery()
  assert.is(stdout, '[{"one":1}]')
  // The probe sees the packages that are loaded, ES modules included.
  assert.ok(packages.has('@mikro-orm/postgresql'), [...packages].join(', '))
  const onPglite = process.env.DATABASE_URL === undefined
  assert.is(packages.has('mikro-orm-pglite'), onPglite)
  assert.is(packages.has('@electric-sql/pglite'), onPglite)
})

test.run()
