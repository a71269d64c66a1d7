#!/usr/bin/env node
// Builds the debug toolbar's two deliveries into dist/toolbar (run by `npm run build`).
import { gzipSync } from 'node:zlib'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { buildToolbar } from '../dist/plugins/debug/assets.js'

const root = fileURLToPath(new URL('..', import.meta.url))
const manifest = buildToolbar(root)
for (const name of [manifest.script, manifest.module]) {
  const code = readFileSync(join(root, 'dist', 'toolbar', name))
  console.log(
    `${name}: ${(code.length / 1024).toFixed(1)} KB minified, ${(gzipSync(code).length / 1024).toFixed(1)} KB gzipped`,
  )
}
