#!/usr/bin/env node
// The `fw` executable: runs the CLI on this process's arguments and exits with its code.
import { existsSync } from 'node:fs'
import module from 'node:module'
import type * as Cli from './cli.js'

// Node ≥ 22.1 keeps the code it compiles (fw's, MikroORM's) on disk for the next start; the method
// does not exist on Node 20, where this does nothing. Before the CLI is imported, so it counts.
;(module as { enableCompileCache?: () => unknown }).enableCompileCache?.()
// From the TypeScript sources (through tsx): the CLI and fw from fw's compiled library when it is up
// to date or can be compiled, a few modules instead of ~230 that each cost a round trip to tsx
// (compile/library.ts); `FW_COMPILE_CACHE=0` loads them one by one.
let cli: string | undefined
if (import.meta.url.endsWith('.ts')) {
  const { compiledLibrary, registerLibrary } = await import('./compile/library.js')
  const library = await compiledLibrary('source', process.env)
  if (library !== undefined) registerLibrary(library)
  cli = library?.cli
}
// Built: the CLI from fw's bundle (`dist/bundle/`, scripts/bundle-dist.mjs), where the app's imports
// of fw resolve too (package.json's exports), so both share one copy of fw in ~60 modules; tsc's
// modules one by one when there is no bundle (a `tsc` run alone).
if (cli === undefined) {
  const bundled = new URL('../bundle/cli-cli.js', import.meta.url)
  if (existsSync(bundled)) cli = bundled.href
}
const { runCli } = (cli === undefined ? await import('./cli.js') : await import(cli)) as typeof Cli

// A reader that stops early (`fw debug:token | head -1`) closes the pipe; the next write fails
// with EPIPE, emitted on the stream. Every command treats that as Unix tools do: what is left to
// print goes nowhere, the command finishes, and the process exits with its code, quietly. Any
// other stream error is still thrown.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || error.code === 'ERR_STREAM_DESTROYED') return
    throw error
  })
}

process.exitCode = await runCli(process.argv.slice(2))
// The app was closed; if a plugin left a handle open anyway, do not hang the shell over it.
setTimeout(() => process.exit(), 2000).unref()
