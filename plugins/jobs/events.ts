// The events a job's run records in its own log, and the one a dispatch records in the log of the
// request (or run) that dispatched it.
declare module 'fw' {
  interface EventMap {
    /** A job was enqueued (or, `id` null, refused as a duplicate of a waiting `unique` job). */
    'job.dispatched': { name: string; id: string | null; key: string | undefined; delay: number }
    /** An attempt of a job began (the first event of its run's log). */
    'job.started': { name: string; id: string; attempt: number; request: string | undefined }
    /**
     * The attempt ended: `completed`, `retrying` (it failed and will run again) or `failed` (no
     * attempt left); `error` is the failure's message.
     */
    'job.completed': {
      name: string
      id: string
      status: 'completed' | 'retrying' | 'failed'
      duration: number
      error: string | undefined
    }
  }
}

export {}
