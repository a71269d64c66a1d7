// What plugins add to `fw serve` (docs/deploying.md "Start requirements"): the CLI knows no plugin,
// so a plugin that can make a start fail, or that ties the app to one process, says so here.

/**
 * A condition a plugin can demand at start: `fw serve --require-<name>` runs `check` after boot
 * and before listening, and exits 1 with its answer instead of serving without it.
 */
export interface StartRequirement {
  /** The flag's line in `fw serve --help`. */
  readonly description: string
  /** Makes the condition hold (connects, migrates…); answers why it cannot, or undefined. */
  check(): Promise<string | undefined>
}

/**
 * The `fw serve` options plugins declare, on `kernel.serveOptions`.
 *
 * @example
 * kernel.serveOptions.require('queue', {
 *   description: 'Exit 1 when the queue cannot be reached, instead of serving without it',
 *   check: async () => ((await queue.ping()) ? undefined : 'the queue is not reachable'),
 * })
 */
export class ServeOptions {
  readonly #requirements = new Map<string, StartRequirement>()
  #oneProcess: string | undefined

  /** Declares `fw serve --require-<name>` (`name`: the plugin's, kebab-case). Replaces one of that name. */
  require(name: string, requirement: StartRequirement): void {
    this.#requirements.set(name, requirement)
  }

  /** The requirements of {@link require}, by name. */
  requirements(): ReadonlyMap<string, StartRequirement> {
    return this.#requirements
  }

  /**
   * The app runs in one process only: `fw serve --workers N` (N > 1) is refused with `message`,
   * which says why and what to do (the first plugin to call it wins).
   */
  oneProcess(message: string): void {
    this.#oneProcess ??= message
  }

  /** Why the app runs in one process only, if a plugin said so. */
  get oneProcessReason(): string | undefined {
    return this.#oneProcess
  }
}
