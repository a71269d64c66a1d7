// The events the database plugin records in a request's log, and its boot phase.
declare module 'fw' {
  interface PhaseNames {
    /** Opening the connection (or PGlite) at the first need: a boot phase. */
    'db-connect': true
  }
  interface EventMap {
    /** A statement ran for this request. `sql` has `?` placeholders; `params` are as bound (projections mask them). */
    'query.executed': {
      sql: string
      params: readonly unknown[]
      duration: number
      rows: number | undefined
      failed: boolean
    }
    /** An entity was loaded from the database. */
    'model.loaded': { entity: string; id: unknown }
    /** An entity was inserted. */
    'model.created': { entity: string; id: unknown }
    /** An entity was updated. */
    'model.updated': { entity: string; id: unknown }
    /** An entity was deleted. */
    'model.deleted': { entity: string; id: unknown }
  }
}

export {}
