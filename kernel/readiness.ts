import type { MaybePromise } from './hook-runner.js'

/**
 * One condition for getting traffic: answers why the instance should get none now (`'database
 * unreachable'`), or undefined when it may. Called on every readiness probe (a load balancer's,
 * every few hundred milliseconds): keep it to a field read, or a cached answer refreshed in the
 * background.
 */
export type ReadinessCheck = () => MaybePromise<string | undefined>

/** What a readiness probe answers. */
export interface ReadinessReport {
  readonly ready: boolean
  /** Why not, one sentence per failed condition (`'stopping'` first when the instance is). */
  readonly reasons: readonly string[]
}

/**
 * Whether this instance should get traffic: not while it is stopping (from the moment a stop
 * begins, through `http.shutdown_delay` and the drain), nor while a plugin's condition fails
 * (the database plugin's: unreachable). Liveness is another question: a stopping instance is alive.
 *
 * @example
 * kernel.readiness.add('queue', () => (queue.connected ? undefined : 'queue unreachable'))
 */
export class Readiness {
  readonly #checks = new Map<string, ReadinessCheck>()
  #stopping = false
  readonly #onStopping: (() => void)[] = []

  /** Adds (or replaces) the condition of `name`. */
  add(name: string, check: ReadinessCheck): void {
    this.#checks.set(name, check)
  }

  /** The instance began to stop: every probe fails from now on. */
  markStopping(): void {
    if (this.#stopping) return
    this.#stopping = true
    for (const listener of this.#onStopping.splice(0)) {
      try {
        listener()
      } catch {
        // A listener's failure must not stop the stop; it is its own to report.
      }
    }
  }

  /**
   * Calls `listener` once when a stop begins, before the shutdown delay and the drain (at once
   * when it began already): what holds a response open (an event stream) ends it here, so the
   * drain does not wait for it.
   */
  onStopping(listener: () => void): void {
    if (this.#stopping) listener()
    else this.#onStopping.push(listener)
  }

  /** True once a stop began. */
  get stopping(): boolean {
    return this.#stopping
  }

  /** Runs every condition (a condition that throws counts as failed, with its name). */
  async report(): Promise<ReadinessReport> {
    const reasons: string[] = this.#stopping ? ['stopping'] : []
    const answers = await Promise.all(
      [...this.#checks].map(async ([name, check]) => {
        try {
          return await check()
        } catch {
          return `${name}: its readiness check failed`
        }
      }),
    )
    for (const answer of answers) if (answer !== undefined) reasons.push(answer)
    return { ready: reasons.length === 0, reasons }
  }
}
