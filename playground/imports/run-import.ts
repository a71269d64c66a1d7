// The product import's work, loaded by its job's handler when a run begins (not when the app
// loads: `fw route:list` never pays for the parser). The file is read twice as a stream through
// csv-parse: once to count its lines (the progress's total), once to import them in batches.
import { createReadStream } from 'node:fs'
import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { importOptional, messageOf, type Kernel } from 'fw'
import type { DatabaseApi } from 'fw/plugins/database'
import type { JobRun } from 'fw/plugins/jobs'
import type * as CsvParse from 'csv-parse'
import { SKU_TAKEN, UNKNOWN_CATEGORY } from '../api/controllers/products.js'
import { headerProblem, productOf, type ProductValues } from './product-row.js'
import { importStore, type ImportFailure, type ImportStore } from './store.js'

/** What an import job carries: its row, and its file under `uploads.dir`. */
export interface ImportPayload {
  readonly importId: number
  readonly path: string
}

/**
 * Lines per transaction: 500 products are 4,000 bound values, well under PostgreSQL's 65,535, and
 * 10,000 lines are 20 short transactions, between which PGlite's one connection serves requests.
 */
export const BATCH_LINES = 500

/** csv-parse, an optional peer dependency of fw (a development dependency of the playground). */
export function loadCsvParse(): Promise<typeof CsvParse> {
  return importOptional<typeof CsvParse>('csv-parse', "the playground's product import")
}

interface Line {
  /** The file's line where this record ends (1 is the header). */
  readonly line: number
  readonly cells: string[]
}

/** The file's records as csv-parse streams them, each with the line it ends on. */
async function* linesOf(csv: typeof CsvParse, file: string): AsyncGenerator<Line> {
  const parser = createReadStream(file).pipe(
    csv.parse({ bom: true, info: true, relax_column_count: true, skip_empty_lines: true }),
  )
  for await (const { record, info } of parser as AsyncIterable<{
    record: string[]
    info: { lines: number }
  }>)
    yield { line: info.lines, cells: record }
}

/**
 * Why an import cannot succeed however often it is tried (the file is not CSV, it is gone, the
 * parser is not installed), as the import's reason; undefined for a failure worth a retry.
 */
function lastingFailure(error: unknown): string | undefined {
  const code = String((error as { code?: unknown })?.code ?? '')
  if (code.startsWith('CSV_')) return `The file is not valid CSV: ${messageOf(error)}`
  if (code === 'ENOENT') return 'The uploaded file is gone.'
  if (code === 'FW_ERR_PACKAGE_MISSING') return messageOf(error)
  return undefined
}

/** What a batch needs besides its lines: the store, the known categories, the header. */
interface Batching {
  readonly db: DatabaseApi
  readonly store: ImportStore
  readonly importId: number
  readonly header: readonly string[]
  readonly categories: ReadonlySet<number>
}

/**
 * One batch in one transaction: the valid lines inserted (a sku already there, or earlier in the
 * file, is reported, never inserted twice: `on conflict do nothing`), every problem reported, and
 * the resume point moved to `done`. A retried job starts after the last committed batch.
 */
async function importBatch(b: Batching, em: EntityManager, lines: readonly Line[], done: number) {
  // The import's row, locked: an attempt given up while its batch was still running (a stopped
  // worker) and its retry never both commit the lines after one resume point.
  const [row] = await b.db.runStatement(
    {
      sql: 'select records_done from product_imports where id = ? for update',
      bindings: [b.importId],
    },
    em,
  )
  if (Number(row?.records_done) !== done - lines.length)
    throw new Error('Another attempt of this import has moved on; this one stops.')
  const failures: ImportFailure[] = []
  const valid: Array<{ line: number; values: ProductValues }> = []
  for (const { line, cells } of lines) {
    const checked = productOf(b.header, cells)
    if (!checked.ok) {
      for (const p of checked.problems) failures.push({ line, ...p })
    } else if (checked.values.category_id !== null && !b.categories.has(checked.values.category_id))
      failures.push({ line, column: 'category_id', message: UNKNOWN_CATEGORY })
    else valid.push({ line, values: checked.values })
  }
  const inserted = new Set<string>()
  if (valid.length > 0) {
    const rows = await b.db.runStatement(
      {
        sql: `insert into products (name, sku, price, stock, active, tags, notes, category_id)
          values ${valid.map(() => '(?, ?, ?, ?, ?, ?::jsonb, ?, ?)').join(', ')}
          on conflict (sku) do nothing returning sku`,
        bindings: valid.flatMap(({ values: v }) => [
          v.name,
          v.sku,
          v.price,
          v.stock,
          v.active,
          JSON.stringify(v.tags),
          v.notes,
          v.category_id,
        ]),
      },
      em,
    )
    for (const row of rows) inserted.add(String(row.sku))
  }
  // Rows are inserted in order: the first line of a sku got it, a later one is reported.
  let count = 0
  for (const { line, values } of valid) {
    if (inserted.delete(values.sku)) count++
    else failures.push({ line, column: 'sku', message: SKU_TAKEN })
  }
  failures.sort((x, y) => x.line - y.line)
  await b.store.report(em, b.importId, failures)
  const failedLines = new Set(failures.map((f) => f.line)).size
  await b.store.advance(em, b.importId, { done, inserted: count, failed: failedLines })
}

/**
 * Imports the payload's file: counts its lines, checks its header, then inserts and reports them a
 * batch at a time, recording `run.progress(done, total)` after each. A file that cannot be read as
 * CSV or has no usable header fails the import (kept with its reason, not retried); any other
 * error fails the attempt, and the job's retry resumes where the last batch was committed; on the
 * `lastAttempt` the import is kept as failed with that error.
 */
export async function runImport(
  kernel: Kernel,
  payload: ImportPayload,
  run: JobRun,
  o: { lastAttempt: boolean },
) {
  const db = kernel.plugin('database')
  const store = importStore(db)
  const current = await store.find(payload.importId)
  if (current === undefined || current.status === 'completed') return
  const file = join(kernel.plugin('uploads').dir, payload.path)
  try {
    const csv = await loadCsvParse()
    let total = -1 // the header is not a product
    for await (const _ of linesOf(csv, file)) total++
    await store.start(payload.importId, Math.max(total, 0))
    const categories = new Set(
      (await db.runStatement({ sql: 'select id from categories', bindings: [] })).map((r) =>
        Number(r.id),
      ),
    )
    let header: string[] | undefined
    let seen = 0
    let batch: Line[] = []
    const flush = async () => {
      if (batch.length === 0) return
      run.signal.throwIfAborted()
      const lines = batch
      batch = []
      const b = { db, store, importId: payload.importId, header: header!, categories }
      await db.em().transactional((em) => importBatch(b, em as EntityManager, lines, seen))
      await run.progress(seen, total)
    }
    for await (const line of linesOf(csv, file)) {
      if (header === undefined) {
        header = line.cells.map((c) => c.trim())
        const problem = headerProblem(header)
        if (problem !== undefined) return await store.finish(payload.importId, 'failed', problem)
        continue
      }
      seen++
      if (seen <= current.done) continue // committed by an earlier attempt
      batch.push(line)
      if (batch.length === BATCH_LINES) await flush()
    }
    await flush()
    if (header === undefined)
      return await store.finish(payload.importId, 'failed', 'The file has no header line.')
    await store.finish(payload.importId, 'completed')
    await unlink(file).catch(() => undefined)
  } catch (error) {
    const lasting = lastingFailure(error)
    if (lasting !== undefined) return await store.finish(payload.importId, 'failed', lasting)
    if (o.lastAttempt)
      await store.finish(payload.importId, 'failed', messageOf(error)).catch(() => undefined)
    throw error
  }
}
