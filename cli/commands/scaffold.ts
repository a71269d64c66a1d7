import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import type { Writable } from 'node:stream'
import { UsageError } from 'clipanion'
import { findApp } from '../load-app.js'

/** The spellings of one name that generators write: `blog-post` as each place needs it. */
export interface Names {
  /** `blog-post`: file names, URL prefixes, route names, plugin names. */
  readonly kebab: string
  /** `blog_post`: SQL, migration names. */
  readonly snake: string
  /** `blogPost`: variables. */
  readonly camel: string
  /** `BlogPost`: classes. */
  readonly pascal: string
}

/** What a generator accepts: letters and digits, words joined by `-` or `_` or by case. */
const NAME = /^[A-Za-z][A-Za-z0-9]*(?:[-_][A-Za-z0-9]+)*$/

/**
 * The words of `input` (`BlogPost`, `blog-post`, `blog_post`, `blogPost` → `blog`, `post`), or a
 * usage error naming `what` and what a name may hold.
 */
export function namesOf(input: string, what: string, example: string): Names {
  if (!NAME.test(input))
    throw new UsageError(
      `'${input}' is not a usable ${what} name: use letters and digits, words joined by - or _ or by capitals (e.g. ${example}).`,
    )
  const words = input
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[\s_-]+/)
    .map((w) => w.toLowerCase())
  return spell(words)
}

/** The spellings of a list of lowercase words. */
export function spell(words: readonly string[]): Names {
  const cap = (w: string): string => w[0]!.toUpperCase() + w.slice(1)
  const pascal = words.map(cap).join('')
  return {
    kebab: words.join('-'),
    snake: words.join('_'),
    camel: pascal[0]!.toLowerCase() + pascal.slice(1),
    pascal,
  }
}

/** `post` → `posts`, `category` → `categories`, `box` → `boxes`: an English plural, for tables. */
export function plural(word: string): string {
  if (/[^aeiou]y$/.test(word)) return `${word.slice(0, -1)}ies`
  if (/(?:s|x|z|ch|sh)$/.test(word)) return `${word}es`
  return `${word}s`
}

/** The folder of the app module (`fw.app` or `FW_APP`): the layout the generators write into. */
export function appFolder(cwd: string, env: NodeJS.ProcessEnv): string {
  return dirname(findApp(cwd, env).file)
}

/** A file a generator writes: its path relative to the app's folder, and its text. */
export interface NewFile {
  readonly path: string
  readonly content: string
}

/**
 * Writes `files` under `root`, none of them over an existing file unless `force`: when one exists,
 * nothing is written and the answer is 1, naming it. Prints each file written.
 */
export function writeFiles(
  root: string,
  files: readonly NewFile[],
  options: { force: boolean; stdout: Writable; stderr: Writable },
): number {
  const taken = files.filter((f) => existsSync(join(root, f.path)))
  if (taken.length > 0 && !options.force) {
    for (const f of taken)
      options.stderr.write(`${f.path} exists: not overwritten (--force replaces it).\n`)
    return 1
  }
  for (const f of files) {
    const at = join(root, f.path)
    const existed = existsSync(at)
    mkdirSync(dirname(at), { recursive: true })
    writeFileSync(at, f.content)
    options.stdout.write(`${existed ? 'replaced' : 'created'} ${relative(root, at)}\n`)
  }
  return 0
}

/** The UTC time as `YYYYMMDDHHMMSS`, the timestamp of a migration's name. */
function stamp(at: Date): string {
  return at.toISOString().replace(/\D/g, '').slice(0, 14)
}

/**
 * The timestamp of a new migration: now, or one second after the newest in `migrations/` when
 * that is later (two made within a second still sort in the order they were made).
 */
export function migrationStamp(root: string, now: Date = new Date()): string {
  const dir = join(root, 'migrations')
  const newest = existsSync(dir)
    ? readdirSync(dir)
        .map((f) => /^Migration(\d{14})_/.exec(f)?.[1])
        .filter((s): s is string => s !== undefined)
        .sort()
        .at(-1)
    : undefined
  const candidate = stamp(now)
  if (newest === undefined || candidate > newest) return candidate
  const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((i, k) =>
    Number(newest.slice(i, k === 0 ? 4 : i + 2)),
  ) as [number, number, number, number, number, number]
  return stamp(new Date(Date.UTC(y, mo - 1, d, h, mi, s + 1)))
}
