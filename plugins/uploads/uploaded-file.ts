// One file of a multipart body, on disk in a temporary file until the handler moves it.
import { createReadStream, constants, type ReadStream } from 'node:fs'
import { copyFile, link, mkdir, realpath, rename, unlink } from 'node:fs/promises'
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path'
import { uploadsErrors } from './errors.js'
import { extensionOf } from './file-name.js'

/** How `moveTo` writes its file. */
export interface MoveOptions {
  /** Replace a file already at that path (default false: refused with `FW_ERR_UPLOADS_PATH`). */
  overwrite?: boolean
}

/** What a file needs from the request that received it. */
export interface FileOwner {
  /** The folder `moveTo` paths are relative to and must stay in (`uploads.dir`, absolute). */
  readonly dir: string
  /** The file left its temporary path: it is no longer removed when the request ends. */
  moved(tempPath: string): void
}

/** A file received in a multipart body. */
export class UploadedFile {
  /** The form field it came in. */
  readonly field: string
  /** The client's file name, reduced to a bare name (no folder, no `..`, no control characters). */
  readonly name: string
  /** Its size in bytes. */
  readonly size: number
  /** The type read from its first bytes (`image/png`); `undefined` when no signature matched. */
  readonly type: string | undefined
  /** The type the client declared for it: a claim, not checked. */
  readonly declaredType: string
  #path: string
  #moved = false
  readonly #owner: FileOwner

  constructor(
    init: Pick<UploadedFile, 'field' | 'name' | 'size' | 'type' | 'declaredType'> & {
      path: string
    },
    owner: FileOwner,
  ) {
    this.field = init.field
    this.name = init.name
    this.size = init.size
    this.type = init.type
    this.declaredType = init.declaredType
    this.#path = init.path
    this.#owner = owner
  }

  /** The extension of its name, lower case, without the dot. */
  get extension(): string {
    return extensionOf(this.name)
  }

  /** Where it is now: its temporary file (removed when the request ends), or where it was moved. */
  get path(): string {
    return this.#path
  }

  /** Its bytes, read from disk. */
  stream(): ReadStream {
    return createReadStream(this.#path)
  }

  /**
   * Moves it to `path` inside `uploads.dir` (a relative path is taken from there), creating the
   * folders on the way, and answers the absolute path. A path that leads outside the folder
   * (`..`, an absolute path elsewhere, a symbolic link inside leading out) or that exists already
   * (unless `overwrite`) is refused with `FW_ERR_UPLOADS_PATH` (400).
   *
   * @example
   * const image = await file(ctx, 'image', { types: ['image/png', 'image/jpeg'] })
   * await image.moveTo(`products/${id}.${image.extension}`)
   */
  async moveTo(path: string, options: MoveOptions = {}): Promise<string> {
    const root = this.#owner.dir
    const target = resolve(root, path)
    const refuse = (problem: string): never => {
      throw uploadsErrors.httpError('FW_ERR_UPLOADS_PATH', { path, problem })
    }
    if (path.includes('\0')) refuse('it contains a NUL character')
    if (!isInside(root, target) || target === root) refuse('it is outside the uploads folder')
    await mkdir(dirname(target), { recursive: true })
    // A link inside the folder may lead out: the real folder the file lands in must be inside too.
    const [realRoot, realParent] = await Promise.all([realpath(root), realpath(dirname(target))])
    if (!isInside(realRoot, realParent) && realParent !== realRoot)
      refuse('it is outside the uploads folder')
    const from = this.#path
    await place(from, target, options.overwrite === true).catch((error: unknown) =>
      (error as NodeJS.ErrnoException).code === 'EEXIST'
        ? refuse('a file is there already')
        : Promise.reject(error),
    )
    this.#path = target
    if (!this.#moved) {
      this.#moved = true
      this.#owner.moved(from)
    }
    return target
  }
}

/** True when `child` is below `parent` (both absolute and normalized). */
function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child)
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !isAbsolute(rel)
}

/**
 * Puts the file at `to`: a rename when replacing is allowed; else a hard link, which fails with
 * EEXIST when something is there (no window between a check and the write), then the unlink of
 * the temporary name. Across file systems (EXDEV) the bytes are copied instead.
 */
async function place(from: string, to: string, overwrite: boolean): Promise<void> {
  try {
    if (overwrite) await rename(from, to)
    else await link(from, to)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error
    await copyFile(from, to, overwrite ? 0 : constants.COPYFILE_EXCL)
  }
  if (!overwrite || (await exists(from))) await unlink(from).catch(() => undefined)
}

async function exists(path: string): Promise<boolean> {
  return realpath(path).then(
    () => true,
    () => false,
  )
}

/** A multipart body, read: its files (in the order they came) and its plain fields. */
export interface Uploads {
  readonly files: readonly UploadedFile[]
  /** Plain fields by name; a name sent more than once has its values in an array. */
  readonly fields: Readonly<Record<string, string | string[]>>
}
