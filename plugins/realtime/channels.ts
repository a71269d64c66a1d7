import type { RequestContext } from 'fw'
import { realtimeErrors } from './errors.js'

/** Who may listen to a channel: `'public'` (anyone), or a check of the request. */
export type ChannelAuthorizer =
  | 'public'
  | ((ctx: RequestContext, params: Readonly<Record<string, string>>) => boolean | Promise<boolean>)

/** A declared channel pattern's options. */
export interface ChannelOptions {
  /**
   * Who may open a stream on a channel the pattern matches: `'public'`, or a function of the
   * request and the pattern's `{param}` values answering whether it may (false: 403, nothing
   * streamed). Required: a channel is never open by omission.
   *
   * @example
   * { authorize: async (ctx, { id }) => (await ctx.identity())?.id === Number(id) }
   */
  authorize: ChannelAuthorizer
}

/** A channel name: dot-separated segments of letters, digits, `_` and `-`. */
const SEGMENT = '[A-Za-z0-9_-]+'
const CHANNEL = new RegExp(`^${SEGMENT}(\\.${SEGMENT})*$`)
const PARAM = /^\{([A-Za-z_][A-Za-z0-9_]*)\}$/
/** Longest channel name: it is sent in every notification and kept with every buffered event. */
export const MAX_CHANNEL_LENGTH = 200

/** Fails with `FW_ERR_REALTIME_INVALID` unless `channel` is a usable concrete channel name. */
export function assertChannelName(channel: string): void {
  if (typeof channel !== 'string' || channel.length > MAX_CHANNEL_LENGTH || !CHANNEL.test(channel))
    throw realtimeErrors.error('FW_ERR_REALTIME_INVALID', {
      what: `channel ${JSON.stringify(channel)}`,
      problem: `use dot-separated segments of letters, digits, '_' and '-', at most ${MAX_CHANNEL_LENGTH} characters`,
    })
}

/** Whether `channel` is a usable concrete channel name (what a client may ask for). */
export function isChannelName(channel: string): boolean {
  return channel.length <= MAX_CHANNEL_LENGTH && CHANNEL.test(channel)
}

interface Declared {
  readonly pattern: string
  /** Segment by segment: a literal, or the name of a parameter. */
  readonly segments: readonly ({ literal: string } | { param: string })[]
  readonly options: ChannelOptions
}

/** A channel a client asked for, matched to its declaration. */
export interface MatchedChannel {
  readonly options: ChannelOptions
  readonly params: Readonly<Record<string, string>>
}

/**
 * The declared channel patterns (`products`, `orders.{id}`), matched segment by segment: a
 * literal segment equal, a `{param}` segment any one segment. Exact declarations are found in a
 * map; patterns with parameters are tried in declaration order.
 */
export class ChannelRegistry {
  readonly #exact = new Map<string, Declared>()
  readonly #patterns: Declared[] = []

  declare(pattern: string, options: ChannelOptions): void {
    const parts = typeof pattern === 'string' ? pattern.split('.') : []
    const segments = parts.map((part) => {
      const param = PARAM.exec(part)?.[1]
      return param === undefined ? { literal: part } : { param }
    })
    const literal = segments.map((s) => ('param' in s ? 'x' : s.literal)).join('.')
    const authorize = (options as Partial<ChannelOptions> | undefined)?.authorize
    const problem =
      parts.length === 0 || !isChannelName(literal)
        ? "use dot-separated segments of letters, digits, '_' and '-', or `{param}`"
        : this.#exact.has(pattern) || this.#patterns.some((d) => d.pattern === pattern)
          ? 'it is declared already'
          : authorize !== 'public' && typeof authorize !== 'function'
            ? "give `authorize`: 'public' or a function of the request"
            : undefined
    if (problem !== undefined)
      throw realtimeErrors.error('FW_ERR_REALTIME_INVALID', {
        what: `channel pattern ${JSON.stringify(pattern)}`,
        problem,
      })
    const declared: Declared = { pattern, segments, options }
    if (segments.every((s) => 'literal' in s)) this.#exact.set(pattern, declared)
    else this.#patterns.push(declared)
  }

  /** The declaration `channel` falls under, with its parameters; undefined when none does. */
  match(channel: string): MatchedChannel | undefined {
    if (!isChannelName(channel)) return undefined
    const exact = this.#exact.get(channel)
    if (exact !== undefined) return { options: exact.options, params: {} }
    const parts = channel.split('.')
    for (const declared of this.#patterns) {
      if (declared.segments.length !== parts.length) continue
      const params: Record<string, string> = {}
      const fits = declared.segments.every((s, i) =>
        'param' in s ? ((params[s.param] = parts[i]!), true) : s.literal === parts[i],
      )
      if (fits) return { options: declared.options, params }
    }
    return undefined
  }
}
