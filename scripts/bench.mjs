#!/usr/bin/env node
// Runs every benchmark (bench/*.ts, not bench/lib/) one after the other, each in its own process
// through tsx with the `fw-source` condition, so `fw` resolves to the TypeScript sources. Stops at
// the first one that fails, with its exit code. Benchmarks print figures and ratios; none asserts
// on timing. `npm run bench -- http event-log` runs only the named ones; options (`--duration 10`)
// are passed on to each.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const args = process.argv.slice(2)
const optionAt = args.findIndex((arg) => arg.startsWith('-'))
const options = optionAt < 0 ? [] : args.slice(optionAt)
const only = (optionAt < 0 ? args : args.slice(0, optionAt)).map((name) =>
  name.replace(/^bench\//, '').replace(/\.ts$/, ''),
)
const all = readdirSync(new URL('../bench/', import.meta.url))
  .filter((file) => file.endsWith('.ts'))
  .sort()
const unknown = only.filter((name) => !all.includes(`${name}.ts`))
if (unknown.length > 0) {
  console.error(`bench: no bench/${unknown[0]}.ts; there are ${all.join(', ')}`)
  process.exit(2)
}
const files = only.length > 0 ? all.filter((file) => only.includes(file.slice(0, -3))) : all
const started = performance.now()
for (const file of files) {
  console.log(`\n▶ bench/${file}`)
  const t = performance.now()
  const { status, signal } = spawnSync(
    process.execPath,
    ['--import', 'tsx', '-C', 'fw-source', `bench/${file}`, ...options],
    {
      cwd: root,
      stdio: 'inherit',
      env: { ...process.env, FORCE_COLOR: '0', NO_COLOR: '1' },
    },
  )
  const seconds = ((performance.now() - t) / 1000).toFixed(1)
  if (status !== 0) {
    console.error(
      `bench: bench/${file} failed (${signal ?? `exit code ${status}`}) after ${seconds} s`,
    )
    process.exit(status || 1)
  }
  console.log(`  (bench/${file}: ${seconds} s)`)
}
console.log(
  `\nbench: ${files.length} benchmarks in ${((performance.now() - started) / 1000).toFixed(0)} s`,
)
