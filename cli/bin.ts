#!/usr/bin/env node
// The `fw` executable: runs the CLI on this process's arguments and exits with its code.
import { runCli } from './cli.js'

process.exitCode = await runCli(process.argv.slice(2))
// The app was closed; if a plugin left a handle open anyway, do not hang the shell over it.
setTimeout(() => process.exit(), 2000).unref()
