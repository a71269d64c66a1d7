// The repository explains itself: no tracked file cites a document that lives outside it, and every
// relative link in a tracked Markdown file leads to a file that is in the repository.
import { execFileSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { repoRoot } from './examples.js'

const test = suite('references')

/**
 * Names of documents that were never part of the repository: a reader with a clone cannot open
 * them, so the code and docs state the behaviour or cite an in-repository document instead.
 * Written as patterns so this file does not cite them itself.
 */
const OUTSIDE = [/\bspec\.md\b/, /\bspec[-]notes\b/, /\bPLAYGROUND\.md\b/, /\bSTYLE\.md\b/]

/** Tracked files (`git ls-files`), relative to the repository root, minus generated folders. */
function trackedFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { cwd: repoRoot, encoding: 'utf8' })
  return out
    .split('\0')
    .filter((path) => path !== '')
    .filter((path) => !/(^|\/)(node_modules|dist)\//.test(path))
    .filter((path) => existsSync(join(repoRoot, path)))
}

/** The file's text, or undefined for a binary file (one with a NUL byte). */
function textOf(path: string): string | undefined {
  const bytes = readFileSync(join(repoRoot, path))
  return bytes.includes(0) ? undefined : bytes.toString('utf8')
}

test('no tracked text file cites a document from outside the repository', () => {
  const problems: string[] = []
  for (const path of trackedFiles()) {
    const text = textOf(path)
    if (text === undefined) continue
    text.split('\n').forEach((line, i) => {
      if (OUTSIDE.some((pattern) => pattern.test(line)))
        problems.push(`${path}:${i + 1}: ${line.trim()}`)
    })
  }
  assert.ok(
    problems.length === 0,
    `${problems.length} reference(s) to documents outside the repository; state the behaviour ` +
      `or cite the in-repository doc that describes it:\n${problems.join('\n')}`,
  )
})

/** Relative link targets of a Markdown text, with their line numbers; code spans and blocks skipped. */
function relativeLinks(text: string): { line: number; target: string }[] {
  const links: { line: number; target: string }[] = []
  let fenced = false
  text.split('\n').forEach((line, i) => {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced
      return
    }
    if (fenced) return
    const prose = line.replace(/`[^`]*`/g, '')
    for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = match[1]!
      if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('#') || target.startsWith('/'))
        continue
      links.push({ line: i + 1, target })
    }
  })
  return links
}

test('every relative link in a tracked Markdown file points to a file in the repository', () => {
  const tracked = trackedFiles()
  const files = new Set(tracked)
  const folders = new Set(tracked.flatMap((path) => ancestors(path)))
  const problems: string[] = []
  for (const path of tracked.filter((p) => p.endsWith('.md'))) {
    const text = textOf(path)
    if (text === undefined) continue
    for (const { line, target } of relativeLinks(text)) {
      const file = decodeURIComponent(target.split('#')[0]!.split('?')[0]!)
      if (file === '') continue
      const resolved = relative(repoRoot, normalize(join(repoRoot, dirname(path), file)))
        .split('\\')
        .join('/')
        .replace(/\/$/, '')
      if (!files.has(resolved) && !folders.has(resolved))
        problems.push(`${path}:${line}: ${target}`)
    }
  }
  assert.ok(
    problems.length === 0,
    `${problems.length} relative link(s) to files not in the repository:\n${problems.join('\n')}`,
  )
})

/** Every folder above a tracked file, so a link to a folder (`plugins/api/`) counts as existing. */
function ancestors(path: string): string[] {
  const out: string[] = []
  for (let dir = dirname(path); dir !== '.' && dir !== ''; dir = dirname(dir)) out.push(dir)
  return out
}

test('the link check sees a missing file, and skips anchors, URLs and code', () => {
  const links = relativeLinks(
    [
      'See [routing](docs/routing.md#schemas) and [web](https://example.com/a.md).',
      'In code: `[x](nowhere.md)`, and [here](#local).',
      '```md',
      '[fenced](nowhere.md)',
      '```',
    ].join('\n'),
  )
  assert.equal(links, [{ line: 1, target: 'docs/routing.md#schemas' }])
})

test.run()
