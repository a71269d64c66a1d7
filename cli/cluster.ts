import cluster, { type Worker } from 'node:cluster'
import type { Writable } from 'node:stream'

/** Options of {@link serveClustered}. */
export interface ClusterOptions {
  /** How many workers to run (at least 2; one worker is just `fw serve`). */
  readonly workers: number
  /** The app's name, for the messages. */
  readonly name: string
  readonly stdout: Writable
  readonly stderr: Writable
}

/**
 * The primary of `fw serve --workers N`: forks N workers, each of which runs the same command line
 * (so loads and boots the app itself) and listens on the shared port. Prints the URL once the
 * first worker listens; restarts a worker that dies after it listened; forwards SIGTERM/SIGINT to
 * every worker, waits for them to drain, and resolves with 0 when they all exited cleanly; a second
 * signal meanwhile kills them and resolves with 1.
 *
 * A worker that dies before it ever listened (it could not boot) stops the whole cluster with 1,
 * rather than restarting it in a loop.
 */
export function serveClustered(options: ClusterOptions): Promise<number> {
  const { workers, name, stdout, stderr } = options
  const listened = new WeakSet<Worker>()
  // The workers not yet exited, counted here: `cluster.workers` drops a worker only once it has
  // both exited and disconnected, and the two events come in either order, so a count of it taken
  // on the last 'exit' may still hold that worker (and nothing would settle the stop).
  const alive = new Set<Worker>()
  const fork = (): void => {
    alive.add(cluster.fork())
  }
  let stopping = false
  let failed = false
  let announced = false

  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals | undefined): void => {
      if (stopping) {
        // A second signal while the workers drain: stop now, as `fw serve` alone does. (The
        // workers ignore a second signal themselves: Ctrl-C reaches them from the terminal too.)
        if (signal === undefined) return
        failed = true
        for (const worker of alive) worker.process.kill('SIGKILL')
        return
      }
      stopping = true
      if (signal) stdout.write(`fw: ${signal} received, draining ${alive.size} workers…\n`)
      for (const worker of alive) worker.process.kill('SIGTERM')
      settleIfDone()
    }
    const settleIfDone = (): void => {
      if (!stopping || alive.size > 0) return
      process.off('SIGTERM', stop)
      process.off('SIGINT', stop)
      if (!failed) stdout.write('fw: stopped.\n')
      resolve(failed ? 1 : 0)
    }

    cluster.on('listening', (worker, address) => {
      listened.add(worker)
      if (announced) return
      announced = true
      const host =
        address.address === undefined || address.address === null ? '127.0.0.1' : address.address
      const shown = host.includes(':') ? `[${host}]` : host
      stdout.write(
        `fw: ${name} listening on http://${shown}:${address.port} (${workers} workers)\n`,
      )
    })
    cluster.on('exit', (worker, code, signal) => {
      alive.delete(worker)
      if (stopping) {
        if (code !== 0 && signal !== 'SIGTERM' && signal !== 'SIGINT') failed = true
        return settleIfDone()
      }
      const how = signal ?? `code ${code}`
      if (!listened.has(worker)) {
        stderr.write(`fw: a worker exited (${how}) before it listened; stopping the cluster.\n`)
        failed = true
        return stop(undefined)
      }
      stderr.write(`fw: worker ${worker.process.pid} died (${how}); starting another.\n`)
      fork()
    })
    process.on('SIGTERM', stop)
    process.on('SIGINT', stop)
    for (let i = 0; i < workers; i++) fork()
  })
}
