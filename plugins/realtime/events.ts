// The events the realtime plugin records in a request's log.
declare module 'fw' {
  interface EventMap {
    /**
     * This request opened a stream on `channel`. `resumed`: the client sent `Last-Event-ID` and
     * it was found in the replay buffer, `replayed` events followed it; `reset`: the client sent
     * one the buffer no longer holds, so it was told to reload (`fw-reset`).
     */
    'realtime.subscribed': { channel: string; resumed: boolean; replayed: number; reset: boolean }
    /**
     * This request published `event` on `channel`, with id `id` and `bytes` of JSON data;
     * `shared`: sent through PostgreSQL `NOTIFY` to every instance (false: this process only).
     */
    'realtime.published': {
      channel: string
      event: string
      id: string
      bytes: number
      shared: boolean
    }
    /**
     * This request was refused a stream on `channel`: `unknown` (404), `forbidden` (403), `full`
     * (503), `stopping` (a stream that ends at once, so the client reconnects elsewhere).
     */
    'realtime.refused': {
      channel: string
      reason: 'unknown' | 'forbidden' | 'full' | 'stopping'
    }
  }
}

export {}
