// The events the uploads plugin records in a request's log.
declare module 'fw' {
  interface EventMap {
    /**
     * A file of a multipart body was written whole to its temporary file. `type` is the type read
     * from its first bytes (`undefined` when they match no known signature), `declared_type` what
     * the client said; `duration` the milliseconds from its first byte to its last.
     */
    'upload.received': {
      field: string
      name: string
      size: number
      type: string | undefined
      declared_type: string
      duration: number
    }
    /** A multipart body was refused: a limit crossed, a type refused, a broken or aborted body. */
    'upload.refused': { field: string | undefined; code: string; status: number }
  }
}

export {}
