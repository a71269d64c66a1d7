// The product imports' rows (`product_imports`, `product_import_failures`, created by the
// playground's migration 20261129120000): what the admin pages read and the import job writes.
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import type { DatabaseApi } from 'fw/plugins/database'

/** Where an import is: waiting for its job, running, done, or given up (`error` says why). */
export type ImportStatus = 'queued' | 'running' | 'completed' | 'failed'

/** One import as the pages and the progress endpoint show it. */
export interface ProductImport {
  readonly id: number
  readonly fileName: string
  readonly path: string
  readonly jobId: string | null
  readonly status: ImportStatus
  /** Data lines in the file (the header excluded), once the job has counted them. */
  readonly total: number | null
  /** Lines handled so far (inserted or reported), committed with their batch. */
  readonly done: number
  readonly inserted: number
  /** Lines reported as failed. */
  readonly failed: number
  readonly error: string | null
  readonly createdBy: string | null
  readonly createdAt: string
  readonly finishedAt: string | null
}

/** One problem of one line of an import. */
export interface ImportFailure {
  readonly line: number
  readonly column: string
  readonly message: string
}

const COLUMNS = `id, file_name, path, job_id, status, total, records_done, inserted, failed, error,
  created_by, created_at, finished_at`

function importOf(row: Record<string, unknown>): ProductImport {
  const iso = (v: unknown) => (v == null ? null : new Date(v as string).toISOString())
  return {
    id: Number(row.id),
    fileName: String(row.file_name),
    path: String(row.path),
    jobId: row.job_id == null ? null : String(row.job_id),
    status: row.status as ImportStatus,
    total: row.total == null ? null : Number(row.total),
    done: Number(row.records_done),
    inserted: Number(row.inserted),
    failed: Number(row.failed),
    error: row.error == null ? null : String(row.error),
    createdBy: row.created_by == null ? null : String(row.created_by),
    createdAt: iso(row.created_at)!,
    finishedAt: iso(row.finished_at),
  }
}

/** A row of `product_import_failures` as the page shows it. */
function failureOf(row: Record<string, unknown>): ImportFailure {
  return { line: Number(row.line), column: String(row.column), message: String(row.message) }
}

/** The imports' table over the app's database; `em` runs a statement in its transaction. */
export function importStore(db: DatabaseApi) {
  const run = (sql: string, bindings: unknown[], em?: EntityManager) =>
    db.runStatement({ sql, bindings }, em)
  return {
    /** A queued import of the upload at `path` (relative to `uploads.dir`); answers its id. */
    async create(
      em: EntityManager,
      o: { fileName: string; path: string; createdBy: string | null },
    ): Promise<number> {
      const [row] = await run(
        'insert into product_imports (file_name, path, created_by) values (?, ?, ?) returning id',
        [o.fileName, o.path, o.createdBy],
        em,
      )
      return Number(row!.id)
    },
    async setJob(em: EntityManager, id: number, jobId: string | null): Promise<void> {
      await run('update product_imports set job_id = ? where id = ?', [jobId, id], em)
    },
    async find(id: number): Promise<ProductImport | undefined> {
      const [row] = await run(`select ${COLUMNS} from product_imports where id = ?`, [id])
      return row === undefined ? undefined : importOf(row)
    },
    /** The newest imports first. */
    async recent(limit: number): Promise<ProductImport[]> {
      const rows = await run(`select ${COLUMNS} from product_imports order by id desc limit ?`, [
        limit,
      ])
      return rows.map(importOf)
    },
    /** The first `limit` problems of an import, by line. */
    async failures(id: number, limit: number): Promise<ImportFailure[]> {
      const rows = await run(
        `select line, "column", message from product_import_failures where import_id = ?
          order by line, id limit ?`,
        [id, limit],
      )
      return rows.map(failureOf)
    },
    /** The job has begun an attempt: running, with the file's line count. */
    async start(id: number, total: number): Promise<void> {
      await run(
        `update product_imports set status = 'running', total = ?, error = null where id = ?`,
        [total, id],
      )
    },
    /** One batch's outcome, in the batch's transaction: the resume point moves with it. */
    async advance(
      em: EntityManager,
      id: number,
      o: { done: number; inserted: number; failed: number },
    ): Promise<void> {
      await run(
        `update product_imports set records_done = ?, inserted = inserted + ?, failed = failed + ?
          where id = ?`,
        [o.done, o.inserted, o.failed, id],
        em,
      )
    },
    async report(em: EntityManager, id: number, failures: readonly ImportFailure[]): Promise<void> {
      if (failures.length === 0) return
      await run(
        `insert into product_import_failures (import_id, line, "column", message) values ${failures
          .map(() => '(?, ?, ?, ?)')
          .join(', ')}`,
        failures.flatMap((f) => [id, f.line, f.column, f.message]),
        em,
      )
    },
    /** Done (`completed`) or given up (`failed`, with the reason). */
    async finish(id: number, status: 'completed' | 'failed', error?: string): Promise<void> {
      await run(
        'update product_imports set status = ?, error = ?, finished_at = now() where id = ?',
        [status, error ?? null, id],
      )
    },
  }
}

/** The store's type. */
export type ImportStore = ReturnType<typeof importStore>
