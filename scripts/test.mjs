#!/usr/bin/env node
// Runs every uvu suite under test/ (or the folders/files given) in one process through tsx, with
// the `fw-source` condition so `fw` and `fw/testing` resolve to the TypeScript sources. Prints
// uvu's report as it comes, then one plain closing line `tests: N passed, N failed` that CI reads.
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { basename, dirname } from 'node:path'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
// A single file runs as its folder plus a pattern naming only it (uvu takes a folder).
const single = args[0]?.endsWith('.ts') ? args[0] : undefined
const dir = single ? dirname(single) : (args[0] ?? 'test')
const pattern = single
  ? `${basename(single).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`
  : (args[1] ?? '\\.test\\.ts$')
const child = spawn(
  process.execPath,
  ['--import', 'tsx', '-C', 'fw-source', 'node_modules/uvu/bin.js', dir, pattern],
  {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: undefined },
  },
)
let out = ''
child.stdout.on('data', (chunk) => {
  out += chunk
  process.stdout.write(chunk)
})
child.on('close', (code) => {
  const total = Number(/Total:\s+(\d+)/.exec(out)?.[1] ?? 0)
  const passed = Number(/Passed:\s+(\d+)/.exec(out)?.[1] ?? 0)
  const skipped = Number(/Skipped:\s+(\d+)/.exec(out)?.[1] ?? 0)
  const failed = total - passed - skipped
  console.log(`\ntests: ${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`)
  process.exit(code === 0 && total > 0 && failed === 0 ? 0 : 1)
})
