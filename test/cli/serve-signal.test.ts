// `fw serve` listens for SIGTERM before it prints that it listens: a process manager (or a test)
// that stops it as soon as it reads the line gets the graceful stop, exit 0, not the signal's
// default death. The preload holds the process for a moment right after that line, where the
// signal then lands.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { startFw } from '../fixtures/fw-process.js'
import { createTempApp, type TempApp } from './temp-app.js'

const test = suite<{ app: TempApp; dir: string }>('fw serve: a signal right after it listens')

/** Spins for 500 ms after writing the line that says it listens (nothing runs meanwhile). */
const HOLD = `const write = process.stdout.write.bind(process.stdout)
process.stdout.write = (chunk, ...rest) => {
  const written = write(chunk, ...rest)
  if (String(chunk).includes('listening on')) {
    const until = Date.now() + 500
    while (Date.now() < until);
  }
  return written
}
`

test.before((context) => {
  context.app = createTempApp()
  context.dir = mkdtempSync(join(tmpdir(), 'fw-serve-signal-'))
  writeFileSync(join(context.dir, 'hold.cjs'), HOLD)
})

test.after(({ app, dir }) => {
  app.remove()
  rmSync(dir, { recursive: true, force: true })
})

test('SIGTERM as soon as the listening line is read: drained, exit 0', async ({ app, dir }) => {
  const served = await startFw({
    command: 'serve',
    env: app.env,
    nodeArgs: ['--require', join(dir, 'hold.cjs')],
  })
  assert.is(await served.stop(), 0, served.output())
  assert.match(served.output(), 'fw: stopped.')
})

test.run()
