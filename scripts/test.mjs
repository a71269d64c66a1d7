#!/usr/bin/env node
// Runs the uvu suites under test/ (or the folder or file given, with an optional file pattern)
// through tsx, with the `fw-source` condition so `fw` and `fw/testing` resolve to the TypeScript
// sources. The files are dealt into chunks of about the same expected time (each file's wall time
// as scripts/test-times.tsv records it; a file not recorded is estimated from its size), each
// chunk one uvu process (a fresh process every few files keeps memory bounded: a process holds
// every embedded database its suites opened until it ends), `FW_TEST_JOBS` processes at a time
// (default: the number of cores, at most 2), the heaviest chunk first. The files of test/browser/
// run in one process of their own, started first in the same pool (so beside one other chunk at
// most: they assert no wall time, and a page mostly waits), the longest group first so that it
// does not trail at the end. The files of test/e2e/ that load the machine or measure wall time run
// afterwards in one process, beside nothing; those that do neither (POOLED below) are dealt into
// the pool's chunks. A chunk's report is printed whole when it ends; the run ends with one plain
// closing line, `tests: N passed, N failed`, which CI reads. To refresh the recorded times after
// a whole run with `FW_TEST_TIMES=<file>` (scripts/test-times.mjs):
// `node scripts/test-times-record.mjs <file>`.
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { clearTimeout, setTimeout } from 'node:timers'
import { basename, dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const single = args[0]?.endsWith('.ts') ? args[0] : undefined
const dir = single ? dirname(single) : (args[0] ?? 'test')
const pattern = new RegExp(
  single ? `${escape(basename(single))}$` : (args[1] ?? '\\.test\\.ts$'),
  'i',
)
const cores = availableParallelism()
const jobs = Math.max(1, Math.min(Number(process.env.FW_TEST_JOBS) || Math.min(cores, 2), cores))
/** How many chunks each process slot gets, so that a long chunk does not leave a slot idle. */
const CHUNKS_PER_JOB = 6
/** How long a process may print nothing before it counts as stuck. */
const IDLE_MS = Number(process.env.FW_TEST_IDLE_MS) || 240_000
/** Folders whose files run alone, after every other: they load the machine or measure wall time. */
const ALONE = ['test/e2e/']
/**
 * The files of ALONE's folders that neither load the machine nor assert anything of wall time or
 * of what other processes' load changes (they start a process or two and check what it answers,
 * with timeouts of minutes): they run in the pool, beside one other chunk. A new file of those
 * folders runs alone until it is named here.
 */
const POOLED = [
  'test/e2e/dev-early-database.test.ts',
  'test/e2e/dev-migrations.test.ts',
  'test/e2e/dev-mode.test.ts',
  'test/e2e/dev-server.test.ts',
  'test/e2e/limits-burst.test.ts',
  'test/e2e/lockout-burst.test.ts',
  // Its time to the first page is printed, not asserted (bench/new-app.ts measures it alone).
  'test/e2e/new-app.test.ts',
  'test/e2e/packed-install.test.ts',
  'test/e2e/pglite-lock.test.ts',
  'test/e2e/playground-serve.test.ts',
  'test/e2e/seed-race.test.ts',
]
/** Each test file's wall ms in a whole run (`ms<TAB>rss MB<TAB>file`), what chunks are balanced by. */
const TIMES = 'scripts/test-times.tsv'
/** Folders whose files run together in one process of the pool (they share a browser's start-up). */
const TOGETHER = ['test/browser/']

function escape(text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function filesUnder(folder) {
  return readdirSync(join(root, folder))
    .sort()
    .flatMap((entry) => {
      const path = join(folder, entry)
      if (entry === 'node_modules' || entry.startsWith('.')) return []
      if (statSync(join(root, path)).isDirectory()) return filesUnder(path)
      return pattern.test(path) ? [path] : []
    })
}

/** Some files through one uvu process (which takes a folder and a pattern naming them). */
function runFiles(files) {
  const started = Date.now()
  const names = files.map((f) => escape(relative(dir, f).split('\\').join('/')))
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        // FW_TEST_TIMES=file: each test file's duration is appended there (scripts/test-times.mjs).
        ...(process.env.FW_TEST_TIMES ? ['--import', './scripts/test-times.mjs'] : []),
        '-C',
        'fw-source',
        'node_modules/uvu/bin.js',
        dir,
        `^(${names.join('|')})$`,
        // uvu sets FORCE_COLOR unless told not to, and Node then warns that NO_COLOR is ignored.
        '--no-color',
      ],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'pipe'],
        env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
      },
    )
    let out = ''
    // uvu has no time limit: a process that prints nothing for IDLE_MS is stuck; it is stopped and
    // reported with the suite it was in (the end of its output), rather than running for ever.
    let idle
    const watch = () => {
      clearTimeout(idle)
      idle = setTimeout(() => {
        out += `\n!! no output for ${IDLE_MS / 1000} s: stopped (the suite above was running)\n`
        child.kill('SIGKILL')
      }, IDLE_MS)
    }
    watch()
    child.stdout.on('data', (chunk) => {
      out += chunk
      watch()
    })
    child.stderr.on('data', (chunk) => {
      out += chunk
      watch()
    })
    child.on('close', (code, signal) => {
      clearTimeout(idle)
      const count = (label) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(out)?.[1] ?? 0)
      const total = count('Total')
      const passed = count('Passed')
      const skipped = count('Skipped')
      // A process that exits badly with every test passed (a crash after the run, an unhandled
      // rejection) or that reports nothing counts as one failure. A suite that reports no test
      // and exits well has none here (a PostgreSQL-only suite on PGlite).
      const reported = /Total:\s+\d+/.test(out)
      const failed = total - passed - skipped || (code === 0 && reported ? 0 : 1)
      const file = files.length === 1 ? files[0] : `${files.length} files`
      done({ file, out, total, passed, skipped, failed, code, signal, ms: Date.now() - started })
    })
  })
}

function report(result) {
  const status = result.failed > 0 ? 'FAIL' : 'ok'
  process.stdout.write(
    `\n── ${result.file} (${(result.ms / 1000).toFixed(1)} s, ${status}` +
      `${result.signal ? `, ${result.signal}` : result.code ? `, exit ${result.code}` : ''})\n${result.out}`,
  )
}

/**
 * Each file's expected ms: as TIMES recorded it, else its size at the recorded files' median ms
 * per byte (a new file), else its size (no record at all).
 */
function weights(files) {
  const recorded = new Map()
  try {
    for (const line of readFileSync(join(root, TIMES), 'utf8').split('\n')) {
      const [ms, , file] = line.split('\t')
      if (file) recorded.set(file, Number(ms))
    }
  } catch {
    // No record: sizes only.
  }
  const size = (f) => statSync(join(root, f)).size
  const rates = files.filter((f) => recorded.has(f)).map((f) => recorded.get(f) / size(f))
  const rate = rates.sort((a, b) => a - b)[Math.floor(rates.length / 2)] ?? 1
  return new Map(files.map((f) => [f, recorded.get(f) ?? size(f) * rate]))
}

/**
 * `files` dealt into `count` chunks of about the same expected time (longest first, each to the
 * lightest chunk), the heaviest chunk first: the pool starts the long ones early, and what trails
 * at the end is short.
 */
function chunks(files, count) {
  const bins = Array.from({ length: Math.min(count, files.length) }, () => ({ ms: 0, files: [] }))
  const weight = weights(files)
  for (const file of [...files].sort((a, b) => weight.get(b) - weight.get(a))) {
    const bin = bins.reduce((a, b) => (b.ms < a.ms ? b : a))
    bin.files.push(file)
    bin.ms += weight.get(file)
  }
  return bins.sort((a, b) => b.ms - a.ms).map((b) => b.files.sort())
}

/** Runs the chunks `width` at a time, each reported as it ends. */
async function runPool(groups, width) {
  const results = []
  let next = 0
  const slot = async () => {
    while (next < groups.length) {
      const result = await runFiles(groups[next++])
      report(result)
      results.push(result)
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, groups.length) }, slot))
  return results
}

const files = single ? [single] : filesUnder(dir)
// The CLI, e2e and playground suites run the built CLI; `npm test` builds it first.
if (!existsSync(join(root, 'dist', 'cli', 'bin.js')))
  console.log('dist/ is not built: the suites that run the built CLI fail (npm run build)\n')
const alone = files.filter((f) => ALONE.some((a) => f.startsWith(a)) && !POOLED.includes(f))
const together = files.filter((f) => TOGETHER.some((a) => f.startsWith(a)))
const shared = files.filter((f) => !alone.includes(f) && !together.includes(f))
const t0 = Date.now()
const results = [
  ...(await runPool(
    [...(together.length > 0 ? [together] : []), ...chunks(shared, jobs * CHUNKS_PER_JOB)],
    jobs,
  )),
  ...(alone.length > 0 ? await runPool([alone], 1) : []),
]
const sum = (key) => results.reduce((n, r) => n + r[key], 0)
if (results.length > 1)
  console.log(
    `\n${files.length} files in ${((Date.now() - t0) / 1000).toFixed(0)} s, ${jobs} processes at a time`,
  )
const failed = sum('failed')
const skipped = sum('skipped')
console.log(
  `\ntests: ${sum('passed')} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`,
)
process.exit(failed === 0 && sum('total') > 0 ? 0 : 1)
