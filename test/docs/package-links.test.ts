import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { posix } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

// The package as npm would publish it (`npm pack --dry-run`, the files package.json#files
// selects): every relative link of every document it ships leads to a file or folder it ships,
// and it carries the licence package.json names.
const test = suite('package-links')

const root = fileURLToPath(new URL('../../', import.meta.url))

let files: Set<string>
test.before(async () => {
  const { stdout } = await promisify(execFile)(
    'npm',
    ['pack', '--dry-run', '--json', '--ignore-scripts'],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  )
  const [packed] = JSON.parse(stdout) as [{ files: { path: string }[] }]
  files = new Set(packed.files.map((f) => f.path))
})

/** The folders holding a shipped file (a link to a folder is fine when the folder ships). */
function foldersOf(paths: Iterable<string>): Set<string> {
  const folders = new Set<string>()
  for (const path of paths) {
    for (let d = posix.dirname(path); d !== '.'; d = posix.dirname(d)) folders.add(d)
  }
  return folders
}

/** The relative link targets of a Markdown text, outside fenced code: inline and reference ones. */
function relativeLinks(markdown: string): string[] {
  const prose = markdown.replace(/^(```|~~~)[\s\S]*?^\1/gm, '')
  const targets = [
    ...[...prose.matchAll(/\]\(\s*([^)\s]+)(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!),
    ...[...prose.matchAll(/^ {0,3}\[[^\]]+\]:\s*(\S+)/gm)].map((m) => m[1]!),
  ]
  // A scheme (https:, mailto:) or an anchor of the same page is not a file of the package.
  return targets.filter((t) => !/^[a-z][a-z0-9+.-]*:/i.test(t) && !t.startsWith('#'))
}

test('finds inline and reference links, not those in code blocks nor absolute ones', () => {
  const text = [
    'See [a](docs/a.md#x), [b](b.md "title") and [web](https://example.com) or [top](#top).',
    '```md',
    '[fenced](nowhere.md)',
    '```',
    '[ref]: ../c.md',
  ].join('\n')
  assert.equal(relativeLinks(text), ['docs/a.md#x', 'b.md', '../c.md'])
})

test('every relative link in a shipped document leads to a shipped file or folder', () => {
  const folders = foldersOf(files)
  const broken: string[] = []
  for (const doc of [...files].filter((f) => f.endsWith('.md'))) {
    for (const target of relativeLinks(readFileSync(posix.join(root, doc), 'utf8'))) {
      const path = posix
        .join(posix.dirname(doc), decodeURI(target.split('#')[0]!))
        .replace(/\/$/, '')
      if (!files.has(path) && !folders.has(path)) broken.push(`${doc}: ${target}`)
    }
  }
  assert.equal(broken, [], `links to files the package does not hold:\n${broken.join('\n')}`)
})

test('ships the MIT licence that package.json names', () => {
  const pkg = JSON.parse(readFileSync(posix.join(root, 'package.json'), 'utf8')) as {
    license: string
  }
  assert.is(pkg.license, 'MIT')
  assert.ok(files.has('LICENSE'), 'no LICENSE in the package')
  assert.match(readFileSync(posix.join(root, 'LICENSE'), 'utf8'), /^MIT License/)
})

test.run()
