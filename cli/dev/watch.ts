import { readdirSync, statSync, watch, type FSWatcher } from 'node:fs'
import { basename, dirname, join, relative, sep } from 'node:path'

/**
 * What a change asks of `fw dev`: `code`, a module the app imports (built again from the changed
 * modules); `view`, a file read when a request needs it (a template, an asset: served as is);
 * `setup`, what the app's setup reads once (`.env`, `package.json`, `tsconfig.json`: built again
 * with `.env` read anew).
 */
export type ChangeKind = 'code' | 'view' | 'setup'

export interface Change {
  readonly path: string
  readonly kind: ChangeKind
}

/** Folders whose files are not the app's sources (`var/` holds its logs and database). */
const SKIPPED = new Set(['node_modules', 'dist', 'var', '.git', 'coverage'])
const CODE = /\.(?:[cm]?[jt]sx?|json)$/
const SETUP = /^(?:\.env(?:\..+)?|package\.json|tsconfig\.json)$/
/** Editors' backup and swap files, and vim's write test (`4913`). */
const SCRATCH = /(?:~|\.swp|\.swx|\.tmp)$|^\d+$|^\.#/

export function kindOf(path: string, root: string): ChangeKind | undefined {
  const rel = relative(root, path)
  if (rel.startsWith('..')) return undefined
  const parts = rel.split(sep)
  if (parts.slice(0, -1).some((part) => SKIPPED.has(part) || part.startsWith('.'))) return undefined
  const name = basename(path)
  // A skipped folder itself, made or removed (a build emptying `dist/`), is not a change either.
  if (SKIPPED.has(name)) return undefined
  if (SETUP.test(name)) return 'setup'
  if (name.startsWith('.') || SCRATCH.test(name)) return undefined
  return CODE.test(name) ? 'code' : 'view'
}

/** Size and modification time: an event that changed neither (a second event for one write) is dropped. */
function stamp(path: string): string {
  try {
    const stats = statSync(path)
    return stats.isFile() ? `${stats.size}:${stats.mtimeMs}` : 'dir'
  } catch {
    return 'gone'
  }
}

/** A folder's files and the subfolders the watcher looks into (none when it cannot be read). */
function listing(dir: string): { files: string[]; folders: string[] } {
  const files: string[] = []
  const folders: string[] = []
  try {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (!entry.isDirectory()) files.push(path)
      else if (!SKIPPED.has(entry.name) && !entry.name.startsWith('.')) folders.push(path)
    }
  } catch {
    // Gone or unreadable: nothing to watch in it.
  }
  return { files, folders }
}

function scan(dir: string, root: string, stamps: Map<string, string>): void {
  const { files, folders } = listing(dir)
  for (const path of files) if (kindOf(path, root) !== undefined) stamps.set(path, stamp(path))
  for (const path of folders) scan(path, root, stamps)
}

/** How long a burst of events (an editor's save, a `git checkout`) is waited out, in ms. */
const SETTLE_MS = 12

/**
 * Watches every folder under `root` (one watcher each, new folders included: Node 20's recursive
 * watch on Linux follows files, and loses one that an editor replaces by a rename) and the
 * `package.json` of `packageDir` when it lies outside, calling `onChanges` with each settled burst
 * of changes.
 */
export function watchApp(
  root: string,
  packageDir: string | undefined,
  onChanges: (changes: Change[]) => void,
): () => void {
  const stamps = new Map<string, string>()
  scan(root, root, stamps)
  const outside = packageDir !== undefined && relative(root, packageDir).startsWith('..')
  const manifest = outside ? join(packageDir, 'package.json') : undefined
  if (manifest !== undefined) stamps.set(manifest, stamp(manifest))
  // `made`: the file did not exist before this burst.
  let batch = new Map<string, Change & { readonly made: boolean }>()
  let timer: NodeJS.Timeout | undefined
  const flush = (): void => {
    timer = undefined
    const changes = [...batch.values()].map(({ path, kind }) => ({ path, kind }))
    batch = new Map()
    if (changes.length > 0) onChanges(changes)
  }
  const seen = (path: string, kind: ChangeKind | undefined): void => {
    if (kind === undefined) return
    const now = stamp(path)
    const before = stamps.get(path)
    if (before === now) return
    stamps.set(path, now)
    const made = batch.get(path)?.made ?? (before === undefined || before === 'gone')
    // A file made and gone within one burst is a save's temporary file (`sed -i`, an editor's
    // write-and-rename): not a change of its own (test/e2e/dev-server.test.ts).
    if (made && now === 'gone') batch.delete(path)
    else batch.set(path, { path, kind, made })
    if (timer !== undefined) clearTimeout(timer)
    timer = setTimeout(flush, SETTLE_MS)
  }
  const watchers = new Map<string, FSWatcher>()
  const follow = (dir: string): void => {
    if (watchers.has(dir)) return
    let watcher: FSWatcher
    try {
      watcher = watch(dir, (_event, name) => {
        if (name === null) return
        const path = join(dir, name.toString())
        if (stamp(path) === 'dir') {
          if (kindOf(join(path, 'x'), root) !== undefined) {
            scan(path, root, stamps)
            walk(path)
          }
        } else seen(path, kindOf(path, root))
      })
    } catch {
      return
    }
    watcher.on('error', () => {
      watcher.close()
      watchers.delete(dir)
    })
    watchers.set(dir, watcher)
  }
  const walk = (dir: string): void => {
    follow(dir)
    for (const folder of listing(dir).folders) walk(folder)
  }
  walk(root)
  if (manifest !== undefined) {
    const watcher = watch(dirname(manifest), (_event, name) => {
      if (name?.toString() === 'package.json') seen(manifest, 'setup')
    })
    watcher.on('error', () => undefined)
    watchers.set(manifest, watcher)
  }
  return () => {
    if (timer !== undefined) clearTimeout(timer)
    for (const watcher of watchers.values()) watcher.close()
    watchers.clear()
  }
}
