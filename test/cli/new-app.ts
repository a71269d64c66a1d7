// An app made by `fw new` in a temp folder, linked to this repository instead of installed (no
// network): `node_modules/fw` is the repository, the tools its package.json names are the
// repository's copies. Its tests then run with `fw` resolved to the TypeScript sources.
import { mkdirSync, mkdtempSync, symlinkSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import * as assert from 'uvu/assert'
import { runCli, type CliResult } from 'fw/testing'
import { repoRoot } from '../docs/examples.js'
import { runOnSources } from '../fixtures/node-on-sources.js'

/** A fresh temp folder to make apps in. */
export function workFolder(): string {
  return mkdtempSync(join(tmpdir(), 'fw-new-'))
}

/** Runs `fw new <name>` in `work` and links the app's dependencies; answers the app's folder. */
export async function newApp(work: string, name: string): Promise<string> {
  const made = await runCli(['new', name], { cwd: work, timeoutMs: 60_000 })
  assert.is(made.code, 0, made.stderr)
  const dir = join(work, name)
  for (const pkg of ['fw', 'tsx', 'typescript', '@types/node']) {
    const at = join(dir, 'node_modules', pkg)
    mkdirSync(dirname(at), { recursive: true })
    symlinkSync(pkg === 'fw' ? repoRoot : join(repoRoot, 'node_modules', pkg), at, 'dir')
  }
  return dir
}

/** Runs `fw <args>` in the app. */
export function fwIn(dir: string, args: readonly string[]): Promise<CliResult> {
  return runCli(args, { cwd: dir, timeoutMs: 60_000, env: { FW_APP: '' } })
}

/** Runs the app's tests as `npm test` does, `fw` from the sources: exit code and output. */
export async function runAppTests(dir: string, files: readonly string[]): Promise<CliResult> {
  // The suite's own FW_APP and DATABASE_URL must not reach the app: it runs on its own defaults.
  const run = await runOnSources(dir, ['--test', ...files], {
    timeoutMs: 400_000,
    without: ['FW_APP', 'DATABASE_URL'],
  })
  return { code: run.code, stdout: run.stdout, stderr: run.stderr }
}
