// The events the limits plugin records in a request's log.
declare module 'fw' {
  interface EventMap {
    /**
     * A limiter counted this request. `remaining` is what is left in the window after it, `reset`
     * the seconds until the window ends; `allowed` false when it answered 429. The counted key is
     * not recorded (it is often a client's address or a username).
     */
    'limit.checked': {
      limiter: string
      allowed: boolean
      remaining: number
      reset: number
      store: string
      duration: number
    }
  }
}

export {}
