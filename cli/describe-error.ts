import { withValueNames } from './command-manifest.js'
import { AppLoadError } from './load-app.js'
import { OUTSIDE_APP_UNKNOWN } from './outside-app.js'

interface Candidate {
  readonly usage: string
  readonly reason: string | null
}

/** Options of {@link describeError}. */
export interface DescribeOptions {
  /** The arguments the CLI ran with, to name an unknown command. */
  readonly argv: readonly string[]
  /** The registered command paths (`route:list`), to suggest one for a typo. */
  readonly commands?: readonly string[]
  /** `FW_DEBUG`: when set (and not `''`, `0`, `false`), an unexpected error's stack follows. */
  readonly debug: string | undefined
  /** No app was found from the cwd: an unknown command may be one of an app's. */
  readonly outsideApp?: boolean
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim()
}

function isOn(flag: string | undefined): boolean {
  return flag !== undefined && flag !== '' && flag !== '0' && flag.toLowerCase() !== 'false'
}

/** Edit distance, for suggesting the command a typo meant. */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(
        row[j]! + 1,
        next[j - 1]! + 1,
        row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1),
      )
    }
    row = next
  }
  return row[b.length]!
}

/** The known command closest to `asked`: one it starts, or one at most two edits away. */
function closest(asked: string, commands: readonly string[]): string | undefined {
  if (asked === '' || asked.startsWith('-')) return undefined
  commands = commands.filter((c) => !c.startsWith('-'))
  const prefixed = commands.find((c) => c.startsWith(asked))
  if (prefixed !== undefined) return prefixed
  let best: { command: string; d: number } | undefined
  for (const command of commands) {
    const d = distance(asked, command)
    if (d <= 2 && (best === undefined || d < best.d)) best = { command, d }
  }
  return best?.command
}

/**
 * A `--require-<plugin>` flag that no registered plugin declared: the flags are the plugins' own
 * (docs/deploying.md "Start requirements"), so the plugin it names is missing.
 */
function undeclaredRequirement(candidates: readonly Candidate[]): string | undefined {
  for (const { reason } of candidates) {
    const name = /^Unsupported option name \("--require-([\w-]+)"\)/.exec(reason ?? '')?.[1]
    if (name !== undefined)
      return `--require-${name} needs the ${name} plugin, which this app does not register. Register it, or serve without the flag.`
  }
  return undefined
}

/** clipanion's "no command matches" error, rewritten as one line that says what to do. */
function unknownSyntax(
  error: Error & { candidates?: readonly Candidate[] },
  options: DescribeOptions,
): string {
  const { argv, commands = [] } = options
  const candidates = error.candidates ?? []
  const asked = argv[0] ?? ''
  const known = commands.includes(asked)
  const reasons = candidates.filter((c) => c.reason !== null)
  const requirement = known ? undeclaredRequirement(reasons) : undefined
  if (requirement !== undefined) return requirement
  if (known && reasons.length > 0 && reasons.length === candidates.length) {
    const first = reasons[0]!
    // The usage line as `--help` prints it: `--email <email>`, not clipanion's `--email #0`.
    return `${first.reason!.replace(/\.$/, '')}. Usage: ${withValueNames(first.usage)}. Run 'fw ${asked} --help' for details.`
  }
  if (known) return `Invalid arguments for 'fw ${asked}'. Run 'fw ${asked} --help' for its usage.`
  const guess = closest(asked, commands)
  const next = options.outsideApp ? OUTSIDE_APP_UNKNOWN : "Run 'fw --help' to list the commands."
  return `Unknown command '${asked}'.${guess === undefined ? '' : ` Did you mean 'fw ${guess}'?`} ${next}`
}

/**
 * Turns anything thrown into what the CLI prints on stderr: `fw: <one line>` for the user's fault
 * (a `UsageError`, bad syntax, an app that does not load); for anything else the error's name and
 * message on one line, then its stack only under `FW_DEBUG`.
 */
export function describeError(error: unknown, options: DescribeOptions): string {
  const debug = isOn(options.debug)
  if (!(error instanceof Error)) return `fw: ${oneLine(String(error))}\n`
  const meta = (error as { clipanion?: { type?: string } }).clipanion
  if (error.name === 'UnknownSyntaxError' || error.name === 'AmbiguousSyntaxError') {
    return `fw: ${oneLine(unknownSyntax(error, options))}\n`
  }
  if (meta?.type === 'usage') return `fw: ${oneLine(error.message)}\n`
  if (error instanceof AppLoadError) {
    const cause = error.cause instanceof Error ? error.cause.stack : undefined
    const tail = debug && cause ? `${cause}\n` : ''
    return `fw: ${oneLine(error.message)}\n${tail}`
  }
  const code = (error as { code?: unknown }).code
  const label = typeof code === 'string' ? `${error.name} [${code}]` : error.name
  const head = `fw: ${label}: ${oneLine(error.message)}`
  if (!debug) return `${head} (set FW_DEBUG=1 to see the stack)\n`
  return `${head}\n${error.stack?.split('\n').slice(1).join('\n') ?? ''}\n`
}
