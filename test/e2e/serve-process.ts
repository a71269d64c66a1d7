// Starts the playground (`fw serve`) as a real process for end-to-end suites.
import { startFw, type FwProcess } from '../fixtures/fw-process.js'

/** A running `fw serve`. */
export type ServedApp = FwProcess

/**
 * Runs `fw serve --port 0` with `env`, resolving once it prints where it listens. `nodeArgs` go
 * to node before the CLI (a preloaded module, say); `serveArgs` replace `--port 0`.
 */
export function servePlayground(
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
  nodeArgs: readonly string[] = [],
  serveArgs: readonly string[] = ['--port', '0'],
): Promise<ServedApp> {
  return startFw({ command: 'serve', args: serveArgs, env, nodeArgs, timeoutMs })
}
