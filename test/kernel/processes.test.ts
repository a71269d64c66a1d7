// isProcessRunning(): what a stale lock file or an unused build is told apart by.
import { spawnSync } from 'node:child_process'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { isProcessRunning } from 'fw'

const test = suite('isProcessRunning')

test('is true for this process and false for one that has exited', () => {
  assert.ok(isProcessRunning(process.pid))
  const exited = spawnSync(process.execPath, ['-e', '']).pid
  assert.not.ok(isProcessRunning(exited))
})

test('is true for a process of another user (pid 1 answers EPERM unless this is root)', () => {
  assert.ok(isProcessRunning(1))
})

test.run()
