#!/usr/bin/env node
// Writes scripts/test-times.tsv, the wall times scripts/test.mjs balances its chunks by, from what
// a whole run recorded with `FW_TEST_TIMES=<file>` (scripts/test-times.mjs: `ms<TAB>rss MB<TAB>file`,
// each file named from test/): one line per file, named from the repository's root, sorted by
// name; a file recorded twice keeps its last time.
// Run: FW_TEST_TIMES=/tmp/times.tsv node scripts/test.mjs && node scripts/test-times-record.mjs /tmp/times.tsv
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const source = process.argv[2]
if (!source) {
  console.error('usage: node scripts/test-times-record.mjs <file FW_TEST_TIMES wrote>')
  process.exit(1)
}
const times = new Map()
for (const line of readFileSync(source, 'utf8').split('\n')) {
  const [ms, rss, file] = line.split('\t')
  if (file) times.set(`test/${file}`, `${ms}\t${rss}`)
}
const target = fileURLToPath(new URL('test-times.tsv', import.meta.url))
const lines = [...times].sort(([a], [b]) => (a < b ? -1 : 1)).map(([f, t]) => `${t}\t${f}`)
writeFileSync(target, `${lines.join('\n')}\n`)
console.log(`${lines.length} files' times written to ${target}`)
