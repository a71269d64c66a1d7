#!/usr/bin/env node
// The `fw` executable: runs the CLI on this process's arguments and exits with its code.
import { runCli } from './cli.js'

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
