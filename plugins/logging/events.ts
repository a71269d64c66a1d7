// The events the logging plugin records in a request's log.
declare module 'fw' {
  interface EventMap {
    /**
     * A log line was written while answering this request (through `logger(ctx)`, or by the
     * kernel's reporting logger). `context` is as written to the file: errors serialised, secrets
     * masked, without `request`, `app` or `time`.
     */
    'log.written': {
      level: 'error' | 'warn' | 'info'
      message: string
      context: Readonly<Record<string, unknown>>
    }
  }
}

export {}
