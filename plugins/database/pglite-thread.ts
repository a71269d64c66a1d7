// An embedded PGlite database owned by a worker thread, so that its statements run off the event
// loop: a slow statement delays only the requests waiting for the database, never the server
// (bench/pglite-stall.ts measures it). The main thread holds a handle shaped as the part of
// PGlite the ORM's driver and the fast path use (`query`, `exec`, `waitReady`, `close`); each
// statement is one message to the thread and one back, its values sent as text (as node-pg
// sends them), its rows parsed in the thread. PGlite cannot cancel a statement (it has no timer
// signals), so the statement timeout is kept here: past it, the statement's caller gets node-pg's
// "Query read timeout" (an outage to `isUnavailableError`: 503), while the thread finishes the
// statement before it runs the next.
import { Worker } from 'node:worker_threads'
import type { Results } from '@electric-sql/pglite'
import { PGLITE_DATA_PATH, type ClusterFiles } from './pglite-seed.js'
import { lockDataDir } from './pglite-lock.js'
import { pgliteWasm, type CompiledWasm } from './pglite-wasm.js'
import { Deadlines, type Running } from './statement-deadlines.js'
import { asText } from './text-parameters.js'

/** The part of PGlite the plugin uses: PGlite itself, or a {@link PgliteThread}. */
export interface EmbeddedDatabase {
  readonly waitReady: Promise<void>
  query<T>(sql: string, params?: unknown[], options?: object): Promise<Results<T>>
  exec(sql: string): Promise<Array<Results>>
  close(): Promise<void>
}

/** A message to the thread. */
export type ThreadRequest =
  | { readonly id: number; readonly op: 'ready' | 'close' }
  | { readonly id: number; readonly op: 'exec'; readonly sql: string }
  | { readonly id: number; readonly op: 'query'; readonly sql: string; readonly params: unknown[] }

/** The thread's answer to one request. */
export interface ThreadReply {
  readonly id: number
  readonly result?: unknown
  readonly error?: { message: string; name?: string; fields: Record<string, unknown> }
}

/**
 * The worker's program, plain JavaScript (a worker does not inherit tsx's loader, and loading it
 * there costs seconds): it opens PGlite as `pgliteStart` prepared it (the template copy, the
 * template's files for a database in memory, or the memory image are made in this thread, in
 * `startEmbedded`), from the binary this thread compiled
 * (pglite-wasm.ts), then runs each posted statement, in
 * order (PGlite runs one at a time), and posts the result or the error's message and fields.
 * Values arrive as text (`asText`), which PGlite passes on as they are. It imports rather than
 * requires: a worker inherits `--input-type=module` (`node --input-type=module -e …`), which runs
 * its program as a module (test/plugins/database/pglite-thread.test.ts).
 */
const WORKER_PROGRAM = `
import('node:worker_threads').then(({ parentPort, workerData }) => {
  const text = new Proxy({}, { get: (_, key) => (typeof key === 'string' && /^\\d+$/.test(key) ? String : undefined) })
  const opening = import(workerData.pglite).then(({ PGlite, MemoryFS }) => {
    const { dataDir, files, image, wasmModule } = workerData
    if (files !== undefined) return PGlite.create({ fs: seeded(MemoryFS, files), wasmModule })
    if (image !== undefined) return PGlite.create({ loadDataDir: new Blob([image]), wasmModule })
    return PGlite.create({ dataDir, wasmModule })
  })
  // seedCluster and seededFs of pglite-seed.ts, in plain JavaScript.
  function seeded(MemoryFS, files) {
    const root = ${JSON.stringify(PGLITE_DATA_PATH)}
    class Seeded extends MemoryFS {
      async initialSyncFs() {
        await super.initialSyncFs()
        const fs = this.pg.Module.FS
        if (!fs.analyzePath(root).exists) fs.mkdir(root)
        for (const [path, offset, length] of files.entries) {
          if (length < 0) fs.mkdir(root + '/' + path)
          else fs.writeFile(root + '/' + path, new Uint8Array(files.data, offset, length))
        }
      }
    }
    return new Seeded()
  }
  opening.catch(() => undefined)
  function plain(error) {
    if (!(error instanceof Error)) return { message: String(error), fields: {} }
    const fields = {}
    for (const [key, value] of Object.entries(error))
      if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) fields[key] = value
    return { message: error.message, name: error.name, fields }
  }
  async function run(request) {
    const db = await opening
    if (request.op === 'exec') return db.exec(request.sql)
    if (request.op === 'query') return db.query(request.sql, request.params, { serializers: text })
    if (request.op === 'close') await db.close()
    return null
  }
  parentPort.on('message', (request) => {
    run(request).then(
      (result) => parentPort.postMessage({ id: request.id, result }),
      (error) => parentPort.postMessage({ id: request.id, error: plain(error) }),
    )
  })
})
`

/** Where this module's PGlite is, for the worker's `import()`. */
const PGLITE_MODULE = import.meta.resolve('@electric-sql/pglite')

/** A statement sent to the thread and not answered yet. */
class Pending implements Running {
  readonly since: number
  end: ((error: Error | undefined, rows: undefined) => void) | undefined
  older: Running | undefined = undefined
  newer: Running | undefined = undefined
  constructor(
    since: number,
    readonly resolve: (result: unknown) => void,
    readonly reject: (error: Error) => void,
    onEnd: (pending: Pending, error: Error | undefined) => void,
  ) {
    this.since = since
    this.end = (error) => onEnd(this, error)
  }
}

/** Rebuilds the database's error in this thread, with its fields (code, table, constraint…). */
function errorOf(reply: NonNullable<ThreadReply['error']>): Error {
  const error = new Error(reply.message)
  Object.assign(error, reply.fields)
  if (reply.name !== undefined) error.name = reply.name
  return error
}

/** PGlite in a worker thread (see the top of this file). */
export class PgliteThread implements EmbeddedDatabase {
  readonly waitReady: Promise<void>
  readonly #worker: Worker
  readonly #pending = new Map<number, Pending>()
  readonly #deadlines: Deadlines
  /** Releases the data directory's lock (pglite-lock.ts) once the thread has ended. */
  readonly #release: () => void
  #next = 0
  /** Set once the thread is gone: every later request fails with it. */
  #gone: Error | undefined

  /** Opens the database `start` describes in a new thread; `statementMs` 0: no timeout. */
  constructor(
    start: {
      dataDir?: string
      files?: ClusterFiles
      image?: ArrayBuffer
      wasmModule: CompiledWasm
    },
    statementMs: number,
    release: () => void = () => undefined,
  ) {
    this.#release = release
    this.#deadlines = new Deadlines(statementMs)
    this.#worker = new Worker(WORKER_PROGRAM, {
      eval: true,
      workerData: { ...start, pglite: PGLITE_MODULE },
      transferList: start.image === undefined ? [] : [start.image],
    })
    this.#worker.on('message', (reply: ThreadReply) => this.#settle(reply))
    this.#worker.on('error', (error) => this.#fail(error))
    this.#worker.on('exit', () =>
      this.#fail(new Error('Connection terminated: the embedded database thread ended')),
    )
    this.waitReady = this.#send({ id: 0, op: 'ready' }).then(() => undefined)
  }

  query<T>(sql: string, params: unknown[] = []): Promise<Results<T>> {
    const values = params.map((v) => (v === null || v === undefined ? null : asText(v)))
    return this.#send({ id: 0, op: 'query', sql, params: values }) as Promise<Results<T>>
  }

  exec(sql: string): Promise<Array<Results>> {
    return this.#send({ id: 0, op: 'exec', sql }) as Promise<Array<Results>>
  }

  /** Closes the database (a data directory is left consistent), then ends the thread. */
  async close(): Promise<void> {
    if (this.#gone === undefined) await this.#send({ id: 0, op: 'close' }).catch(() => undefined)
    this.#deadlines.close()
    await this.#worker.terminate().finally(this.#release)
  }

  #send(request: ThreadRequest): Promise<unknown> {
    if (this.#gone !== undefined) return Promise.reject(this.#gone)
    const id = ++this.#next
    return new Promise((resolve, reject) => {
      const pending = new Pending(this.#deadlines.now(), resolve, reject, (p, error) =>
        this.#timeout(id, p, error),
      )
      // The thread keeps the process up only while a statement is waiting for it.
      if (this.#pending.size === 0) this.#worker.ref()
      this.#pending.set(id, pending)
      if (request.op !== 'ready' && request.op !== 'close') this.#deadlines.add(pending)
      this.#worker.postMessage({ ...request, id })
    })
  }

  #take(id: number): Pending | undefined {
    const pending = this.#pending.get(id)
    if (pending === undefined) return undefined
    this.#pending.delete(id)
    this.#deadlines.remove(pending)
    pending.end = undefined
    if (this.#pending.size === 0) this.#worker.unref()
    return pending
  }

  #settle(reply: ThreadReply): void {
    const pending = this.#take(reply.id)
    if (pending === undefined) return // answered after its timeout: nobody waits for it
    if (reply.error !== undefined) pending.reject(errorOf(reply.error))
    else pending.resolve(reply.result)
  }

  #timeout(id: number, _pending: Pending, error: Error | undefined): void {
    this.#take(id)?.reject(error ?? new Error('Query read timeout'))
  }

  #fail(error: Error): void {
    this.#gone ??= error
    for (const id of [...this.#pending.keys()]) this.#take(id)?.reject(this.#gone)
  }
}

/**
 * Starts opening the embedded database at `dataDir` (in memory when undefined) in a worker thread
 * (`database.pglite_worker`, the default), or in this thread: answers once the thread is running
 * (what `fw dev` waits for before it loads the app, cli/dev/early-database.ts), with the database
 * on its way (`ready`). A directory that cannot be opened rejects `ready`.
 */
export async function startEmbedded(
  dataDir: string | undefined,
  how: { readonly statementMs: number; readonly inWorker: boolean },
): Promise<{ readonly ready: Promise<EmbeddedDatabase> }> {
  // Before anything touches the directory: another process's database is never copied into or
  // opened (pglite-lock.ts); in memory, nothing to lock.
  const release = dataDir === undefined ? () => undefined : lockDataDir(dataDir)
  try {
    const { ready } = await startLocked(dataDir, how, release)
    return { ready: ready.catch((error: unknown) => Promise.reject(released(error, release))) }
  } catch (error) {
    throw released(error, release)
  }
}

/** `error`, once the lock of the opening it ended is released. */
function released(error: unknown, release: () => void): unknown {
  release()
  return error
}

/** {@link startEmbedded} once the directory is locked; `release` goes with the handle's close. */
async function startLocked(
  dataDir: string | undefined,
  { statementMs, inWorker }: { readonly statementMs: number; readonly inWorker: boolean },
  release: () => void,
): Promise<{ readonly ready: Promise<EmbeddedDatabase> }> {
  const { createPglite, pgliteStart } = await import('./pglite-template.js')
  if (!inWorker) return { ready: createPglite(dataDir).then((db) => releasedOnClose(db, release)) }
  const [start, wasmModule] = await Promise.all([pgliteStart(dataDir), pgliteWasm()])
  const image = await start.image?.arrayBuffer()
  const thread = new PgliteThread(
    {
      ...(start.dataDir === undefined ? {} : { dataDir: start.dataDir }),
      ...(start.files === undefined ? {} : { files: start.files }),
      ...(image ? { image } : {}),
      wasmModule,
    },
    statementMs,
    release,
  )
  const ready = thread.waitReady.then(
    () => thread,
    async (error: unknown) => {
      await thread.close()
      throw error
    },
  )
  return { ready }
}

/** PGlite opened in this thread, its close releasing the directory's lock after it. */
function releasedOnClose(db: EmbeddedDatabase, release: () => void): EmbeddedDatabase {
  const close = db.close.bind(db)
  return Object.assign(db, {
    close: () => close().finally(release),
  })
}

/** {@link startEmbedded}, ready. */
export async function openEmbedded(
  dataDir: string | undefined,
  how: { readonly statementMs: number; readonly inWorker: boolean },
): Promise<EmbeddedDatabase> {
  return (await startEmbedded(dataDir, how)).ready
}
