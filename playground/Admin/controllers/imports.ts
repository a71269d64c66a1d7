import { open } from 'node:fs/promises'
import { randomUUID } from 'node:crypto'
import type { SqlEntityManager as EntityManager } from '@mikro-orm/knex'
import { HttpError, json, redirect, view, type RequestContext } from 'fw'
import { file, type UploadedFile } from 'fw/plugins/uploads'
import { missingPackages, productImport } from '../../imports/import-job.js'
import {
  headerProblem,
  IMPORT_COLUMNS,
  REQUIRED_COLUMNS,
  TAG_SEPARATOR,
} from '../../imports/product-row.js'
import { importStore, type ProductImport } from '../../imports/store.js'

/** Imports listed on the index page, newest first. */
const RECENT = 20
/** Failed lines an import's page (and its progress once done) shows, by line. */
export const FAILURES_SHOWN = 50
/** What the upload handler reads of a file to check its header. */
const HEAD_BYTES = 64 * 1024

const refuse = (message: string) =>
  new HttpError(422, { error: 'invalid_import', message, field: 'csv' })

/** The import of `option` (`/admin/imports/show/<id>`), or 404. */
async function importOf(ctx: RequestContext, option: string | undefined): Promise<ProductImport> {
  // Digits only: `0x1`, `1e0` or ` 1` name no import (Number() would read them as 1).
  const id = option !== undefined && /^[1-9]\d{0,14}$/.test(option) ? Number(option) : undefined
  const found =
    id === undefined ? undefined : await importStore(ctx.kernel.plugin('database')).find(id)
  if (found === undefined) throw new HttpError(404, { error: 'not_found' })
  return found
}

/**
 * Refuses, before any job is queued, a file that cannot be an import: binary, or whose first line
 * is not a header naming the product columns, or with no line after it. (An empty file is no file
 * to the uploads plugin: "The csv file is required.")
 */
async function checkHead(upload: UploadedFile): Promise<void> {
  // A known signature (an image, an archive, a PDF…) is not CSV, whatever its name.
  if (upload.type !== undefined) throw refuse(`The file is ${upload.type}, not CSV.`)
  const handle = await open(upload.path, 'r')
  const { buffer, bytesRead } = await handle
    .read({ buffer: Buffer.alloc(HEAD_BYTES) })
    .finally(() => handle.close())
  const head = buffer
    .subarray(0, bytesRead)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
  if (head.includes('\u0000')) throw refuse('The file is binary, not CSV.')
  const [first = '', ...rest] = head.split(/\r?\n/)
  const { parse } = await import('csv-parse/sync')
  let header: string[] = []
  try {
    header = (parse(first) as string[][])[0]?.map((c) => c.trim()) ?? []
  } catch {
    // An unreadable first line is not a header: said below.
  }
  const problem = headerProblem(header)
  if (problem !== undefined) throw refuse(`The first line is not a header. ${problem}`)
  if (bytesRead < HEAD_BYTES && rest.every((l) => l.trim() === ''))
    throw refuse('The file has a header and no product line.')
}

/**
 * The area's `imports` controller: products imported from a CSV file by a background job (the
 * jobs plugin), its progress followed on the import's page. The area's floor admits who may.
 */
export default class ImportsController {
  /** `GET /admin/imports`: the upload form, the columns it takes, and the recent imports. */
  async index(_args: string[], ctx: RequestContext) {
    const missing = missingPackages()
    const imports = ctx.kernel.hasPlugin('database')
      ? await importStore(ctx.kernel.plugin('database')).recent(RECENT)
      : []
    return view('imports', {
      title: 'Product imports',
      missing,
      install: missing.length === 0 ? '' : `npm install ${missing.join(' ')}`,
      columns: IMPORT_COLUMNS,
      required: REQUIRED_COLUMNS,
      separator: TAG_SEPARATOR,
      maxMegabytes: Math.floor(ctx.kernel.config.uploads.max_file_size / 2 ** 20),
      imports,
    })
  }

  /**
   * `POST /admin/imports/upload` with the form field `csv` (a `.csv` of at most
   * `uploads.max_file_size`): keeps it under `uploads.dir`, queues its import, and answers 303 to
   * the import's page at once. 422 for a file that cannot be an import, 503 when the packages
   * imports need are not installed.
   */
  async upload(_args: string[], ctx: RequestContext) {
    if (ctx.method !== 'POST')
      throw new HttpError(405, { error: 'method_not_allowed' }, { headers: { allow: 'POST' } })
    const missing = missingPackages()
    if (missing.length > 0 || !ctx.kernel.hasPlugin('jobs'))
      throw new HttpError(503, {
        error: 'imports_unavailable',
        message:
          missing.length > 0
            ? `Product imports need ${missing.join(' and ')}: npm install ${missing.join(' ')}`
            : 'Product imports need the jobs plugin, which this app does not register.',
      })
    const upload = await file(ctx, 'csv', { extensions: ['csv'] })
    await checkHead(upload)
    const path = `imports/${randomUUID()}.csv`
    await upload.moveTo(path)
    const db = ctx.kernel.plugin('database')
    const store = importStore(db)
    const who = await ctx.identity()
    const jobs = ctx.kernel.plugin('jobs')
    // The row and its job commit together: no import waits for a job that was never queued.
    const id = await db.em().transactional(async (em) => {
      const tx = em as EntityManager
      const created = await store.create(tx, {
        fileName: upload.name,
        path,
        createdBy: who?.username ?? null,
      })
      const payload = { importId: created, path }
      const jobId = await jobs.dispatch(productImport, payload, { em: tx })
      await store.setJob(tx, created, jobId)
      return created
    })
    return redirect(ctx.kernel.plugin('admin').adminUrl(`imports/show/${id}`), 303)
  }

  /** `GET /admin/imports/show/<id>`: the import's progress, then its counts and failed lines. */
  async show(args: string[], ctx: RequestContext) {
    const found = await importOf(ctx, args[0])
    const failures = await importStore(ctx.kernel.plugin('database')).failures(
      found.id,
      FAILURES_SHOWN,
    )
    return view('import', { title: `Import #${found.id}`, item: found, failures })
  }

  /**
   * `GET /admin/imports/progress/<id>`: `{id, status, done, total, inserted, failed, error,
   * failures}` (the first failed lines once it has finished), what the import's page polls.
   */
  async progress(args: string[], ctx: RequestContext) {
    const found = await importOf(ctx, args[0])
    const finished = found.status === 'completed' || found.status === 'failed'
    const failures = finished
      ? await importStore(ctx.kernel.plugin('database')).failures(found.id, FAILURES_SHOWN)
      : []
    return json({
      id: found.id,
      status: found.status,
      done: found.done,
      total: found.total,
      inserted: found.inserted,
      failed: found.failed,
      error: found.error,
      failures,
    })
  }
}
