import { definePluginErrors, type CodesOf } from 'fw'

/** The realtime plugin's error codes. */
export const realtimeErrors = definePluginErrors('realtime', {
  FW_ERR_REALTIME_INVALID: {
    when: 'A channel was declared, or an event published, with a name the plugin cannot use: a channel is dot-separated segments of letters, digits, `_` and `-` (a `{param}` segment in a declared pattern), at most 200 characters; an event name is letters, digits, `_`, `.`, `:` and `-`, at most 64; `fw-reset` is reserved.',
    fix: 'The message names the problem; fix the name.',
    message: ({ what, problem }: { what: string; problem: string }) =>
      `Realtime ${what}: ${problem}.`,
  },
  FW_ERR_REALTIME_PAYLOAD: {
    when: "`publish()` got data whose JSON is over 7,000 bytes (PostgreSQL's `NOTIFY` carries under 8,000 bytes), or that `JSON.stringify` cannot serialise.",
    fix: 'Publish what changed (an id, a few fields) and let clients fetch the rest.',
    message: ({ channel, problem }: { channel: string; problem: string }) =>
      `Cannot publish on channel ${JSON.stringify(channel)}: ${problem}.`,
  },
  FW_ERR_REALTIME_UNKNOWN_CHANNEL: {
    when: 'A client asked for the events of a channel no declared pattern matches. Answered 404 `{"error":"unknown_channel"}`.',
    fix: "Declare the channel (`kernel.plugin('realtime').channel(pattern, { authorize })` or the `channels` option), or fix the client's URL.",
    status: 404,
    error: 'unknown_channel',
    message: 'No such channel.',
  },
  FW_ERR_REALTIME_FORBIDDEN: {
    when: 'A client asked for the events of a channel whose `authorize` answered false for it. Answered 403 `{"error":"forbidden"}`; nothing is streamed.',
    fix: "Nothing on the server when the refusal is right; otherwise sign the client in, or change the channel's `authorize`.",
    status: 403,
    error: 'forbidden',
    message: 'You may not listen to this channel.',
  },
  FW_ERR_REALTIME_FULL: {
    when: 'A client asked for a stream while this process already holds `realtime.max_subscribers` streams. Answered 503 `{"error":"realtime_unavailable"}` with `Retry-After`.',
    fix: 'Add instances, or raise `realtime.max_subscribers` when the memory allows (about 12–15 KB per idle stream, measured by bench/sse.ts; see docs/realtime.md).',
    status: 503,
    error: 'realtime_unavailable',
    message: 'This server takes no more event streams now; try again shortly.',
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof realtimeErrors> {}
}
