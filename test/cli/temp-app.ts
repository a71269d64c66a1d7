// A throwaway app for CLI suites that write files: its own root in a temp dir, so nothing lands in
// playground/. The module is plain ESM importing fw by the URL `fw` resolves to in this process.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/** A temp app: its root, the module to point `FW_APP` at, and a way to delete it. */
export interface TempApp {
  readonly root: string
  readonly module: string
  readonly env: { FW_APP: string }
  /** Writes the module again with other code (once the root exists, say). */
  rewrite(source: TempAppSource): void
  remove(): void
}

/** What to add to the temp app module: code at the top, and code run on the kernel in the factory. */
export interface TempAppSource {
  readonly preamble?: string
  readonly setup?: string
}

/** Writes a minimal app module (a kernel with one route) whose root is a fresh temp dir. */
export function createTempApp(source: TempAppSource = {}): TempApp {
  const root = mkdtempSync(join(tmpdir(), 'fw-cli-'))
  const module = join(root, 'app.mjs')
  const write = (source: TempAppSource): void =>
    writeFileSync(
      module,
      `import { createKernel } from ${JSON.stringify(import.meta.resolve('fw'))}
${source.preamble ?? ''}
export default ({ env } = {}) => {
  const kernel = createKernel({ root: ${JSON.stringify(root)}, env })
  kernel.router.get('hello', function hello() { return { hello: 'world' } }).name('hello')
${source.setup ?? ''}
  return kernel
}
`,
    )
  write(source)
  return {
    root,
    module,
    env: { FW_APP: module },
    rewrite: write,
    remove: () => rmSync(root, { recursive: true, force: true }),
  }
}
