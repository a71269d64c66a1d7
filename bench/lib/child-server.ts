// The parent side of a benchmark server: spawns `node --import tsx -C fw-source <file>` with an
// IPC channel, waits for its port, and makes sure it dies with the parent (normal exit, a thrown
// error, Ctrl-C).
import { spawn, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import type { ChildMessage, ParentMessage } from './server-ipc.js'

/** CPU time a process used, in microseconds (as `process.cpuUsage()` reports it). */
export interface CpuTime {
  readonly user: number
  readonly system: number
}

/** A running server child. */
export interface ServerChild {
  readonly name: string
  readonly port: number
  readonly url: string
  readonly pid: number
  /** The child's CPU time so far. */
  cpu(): Promise<CpuTime>
  /** Ends the child (by its pid) and waits for it to exit. */
  stop(): Promise<void>
}

const root = fileURLToPath(new URL('../..', import.meta.url))
/** The children started and not exited yet: killed when this process exits or is interrupted. */
const live = new Set<ChildProcess>()

/** Kills `child` should this process exit, or be interrupted, before it ends or fails to start. */
export function killOnExit(child: ChildProcess): void {
  live.add(child)
  child.once('exit', () => live.delete(child))
  child.once('error', () => live.delete(child))
}

function killAll(): void {
  for (const child of live) child.kill('SIGKILL')
  live.clear()
}
process.once('exit', killAll)
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    killAll()
    process.exit(130)
  })
}

/**
 * Starts `bench/lib/<file>` in its own process and resolves once it listens. `startupMs` bounds
 * the wait: a server that never says where it listens fails the benchmark instead of hanging it.
 */
export function startServer(
  name: string,
  file: string,
  extraNodeArgs: readonly string[] = [],
  startupMs = 20_000,
  env: Readonly<Record<string, string>> = {},
): Promise<ServerChild> {
  return spawnServer(
    name,
    [
      ...extraNodeArgs,
      '--import',
      'tsx',
      '-C',
      'fw-source',
      fileURLToPath(new URL(file, import.meta.url)),
    ],
    startupMs,
    env,
  )
}

/**
 * Starts `node <nodeArgv>` (a server that calls `announce()` from server-ipc.ts, however it is
 * loaded: through tsx as {@link startServer} does, or compiled JavaScript) and resolves once it
 * listens; it dies with the parent like every child of this module.
 */
export function spawnServer(
  name: string,
  nodeArgv: readonly string[],
  startupMs = 20_000,
  env: Readonly<Record<string, string>> = {},
): Promise<ServerChild> {
  const child = spawn(process.execPath, nodeArgv, {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, NODE_ENV: 'production', ...env },
  })
  killOnExit(child)
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise<ServerChild>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`${name} server did not start within ${startupMs} ms`))
    }, startupMs)
    child.once('exit', (code, signal) => {
      clearTimeout(timer)
      reject(new Error(`${name} server exited before listening (code ${code}, signal ${signal})`))
    })
    child.on('message', function onListening(message: ChildMessage) {
      if (message.type !== 'listening') return
      clearTimeout(timer)
      child.off('message', onListening)
      const port = message.port
      resolve({
        name,
        port,
        url: `http://127.0.0.1:${port}`,
        pid: child.pid!,
        cpu: () =>
          new Promise<CpuTime>((res, rej) => {
            const t = setTimeout(
              () => rej(new Error(`${name} server did not report its CPU time`)),
              5_000,
            )
            child.on('message', function onCpu(m: ChildMessage) {
              if (m.type !== 'cpu') return
              clearTimeout(t)
              child.off('message', onCpu)
              res({ user: m.user, system: m.system })
            })
            child.send({ type: 'cpu' } satisfies ParentMessage)
          }),
        async stop() {
          if (child.exitCode === null && child.signalCode === null) {
            // Closing the IPC channel makes the child close its server and exit; SIGKILL if it does not.
            child.disconnect()
            const t = setTimeout(() => child.kill('SIGKILL'), 3_000)
            await exited
            clearTimeout(t)
          }
        },
      })
    })
  })
}
