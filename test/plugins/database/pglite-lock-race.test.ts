// The embedded database's lock (plugins/database/pglite-lock.ts) under a burst: processes that ask
// for one data directory in the same few milliseconds, its lock file left by a process that is
// gone or not there at all: exactly one of them gets it, every other is told it is in use.
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'

const test = suite('the embedded database lock under a burst')
const child = fileURLToPath(new URL('./pglite-lock-child.ts', import.meta.url))
const PROCESSES = 6
const ROUNDS = 2

/** A child asking for the lock at `startAt`: what it said, and the end of its hold. */
function ask(
  dataDir: string,
  startAt: number,
): { said: Promise<string>; end: () => Promise<void> } {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', '--conditions', 'fw-source', child, dataDir, String(startAt)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  )
  const closed = new Promise<void>((done) => proc.on('close', () => done()))
  const said = new Promise<string>((done, fail) => {
    let out = ''
    proc.on('error', fail)
    proc.stdout.on('data', (c: Buffer) => {
      out += c.toString()
      if (out.includes('\n')) done(out.trim())
    })
    void closed.then(() => done(out.trim()))
  })
  return { said, end: () => (proc.stdin.end(), closed) }
}

/** A pid no process has: one that ran and ended. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'])
    .stdout.toString()
    .trim() as unknown as number
}

async function burst(prepare: (lockFile: string) => void): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    const work = mkdtempSync(join(tmpdir(), 'fw-lock-race-'))
    try {
      const dataDir = join(work, 'db')
      prepare(`${dataDir}.lock`)
      // Long enough for every child to start and wait (tsx loads in ~0.5 s each).
      const startAt = Date.now() + 2500
      const children = Array.from({ length: PROCESSES }, () => ask(dataDir, startAt))
      // Every child answers while the one that got the lock still holds it.
      const said = await Promise.all(children.map((c) => c.said))
      await Promise.all(children.map((c) => c.end()))
      const locked = said.filter((s) => s === 'locked').length
      const refused = said.filter((s) => s === 'in use').length
      assert.equal({ locked, refused }, { locked: 1, refused: PROCESSES - 1 }, said.join(', '))
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  }
}

test('a lock left by a process that is gone: one process takes it over', async () => {
  await burst((lockFile) => writeFileSync(lockFile, `${deadPid()}\n`))
})

test('no lock file: one process makes it', async () => {
  await burst(() => undefined)
})

test.run()
