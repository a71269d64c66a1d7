// The `_debug` payload's projections of the database plugin's events (`queries`, `models`) and its
// migrations. They belong with the plugin that records those events, registered through
// `kernel.plugin('debug').project(…)` as the auth, api, logging and views plugins do; they stay
// here until the database plugin registers them itself.
import type { PayloadProjections } from './payload.js'
import { redactParams } from './redact.js'

/** Statements kept in the payload; `count` stays the full count. */
export const MAX_STATEMENTS = 100

/** Registers the projections of the database plugin's events. */
export function projectDatabaseEvents(payload: PayloadProjections): void {
  payload.project('queries', (i) => {
    const all = i.of('query.executed')
    let total = 0
    for (const q of all) total += q.data.duration
    const out: Record<string, unknown> = {
      count: all.length,
      total_ms: i.ms(total),
      statements: all.slice(0, MAX_STATEMENTS).map((q) => ({
        sql: q.data.sql,
        params: redactParams(q.data.sql, q.data.params, i.ctx.kernel.redaction),
        ms: i.ms(q.data.duration),
        rows: q.data.rows ?? null,
        ...(q.data.failed ? { failed: true } : {}),
      })),
    }
    if (all.length > MAX_STATEMENTS) out.truncated = true
    return out
  })
  payload.project('models', (i) => {
    const out: { action: string; entity: string; id: unknown }[] = []
    for (const e of i.events) {
      if (
        e.type === 'model.loaded' ||
        e.type === 'model.created' ||
        e.type === 'model.updated' ||
        e.type === 'model.deleted'
      )
        out.push({ action: e.type.slice(6), entity: e.data.entity, id: i.redact(e.data.id) })
    }
    return out
  })
  // Every migration the app knows with its state (README.md "The payload"): the database
  // plugin's snapshot, read when it prepared the database (at listen, `fw migrate`).
  payload.project('migrations', (i) => {
    const kernel = i.ctx.kernel
    return kernel.hasPlugin('database') ? kernel.plugin('database').migrations() : []
  })
}
