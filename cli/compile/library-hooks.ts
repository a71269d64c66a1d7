// Module loader hooks (registered with `module.register`, run on Node's hooks thread) that serve
// fw's compiled library (library.ts) when the CLI runs from its TypeScript sources through tsx:
// the compiled chunks are loaded as they are, without tsx's transform, and an import that resolves
// to one of fw's package entries (`fw`, `fw/plugins/api`, … as the `fw-source` condition resolves
// them: `kernel/index.ts`) is given the compiled entry instead, so the app and the CLI share one
// copy of fw. Every other module (the app's) goes on to tsx as before.
import { readFile } from 'node:fs/promises'
import type { Loaded, NextResolve, ResolveContext, Resolved } from '../loader-hooks.js'

/** What the CLI registers the hooks with. */
export interface LibraryHooksData {
  /** The compiled library's folder as a `file:` URL ending in `/`. */
  readonly folder: string
  /** Each package entry's source URL, and the URL of its compiled module. */
  readonly entries: Readonly<Record<string, string>>
}

let folder = '\0'
let entries = new Map<string, string>()

export function initialize(data: LibraryHooksData): void {
  folder = data.folder
  entries = new Map(Object.entries(data.entries))
}

export async function resolve(
  specifier: string,
  context: ResolveContext,
  nextResolve: NextResolve,
): Promise<Resolved> {
  // The CLI's import of a compiled module, or a chunk importing another: nothing to ask tsx. The
  // URL is kept as it is, not made real: `node_modules` may be a link (a git worktree's), and the
  // packages the chunks import resolve from inside fw's folder only through it.
  if (specifier.startsWith(folder)) return { url: specifier, format: 'module', shortCircuit: true }
  if (context.parentURL?.startsWith(folder) && /^\.\.?\//.test(specifier)) {
    return { url: new URL(specifier, context.parentURL).href, format: 'module', shortCircuit: true }
  }
  const found = await nextResolve(specifier, context)
  const entry = entries.get(found.url)
  return entry === undefined ? found : { url: entry, format: 'module', shortCircuit: true }
}

export async function load(
  url: string,
  context: unknown,
  nextLoad: (url: string, context: unknown) => Promise<Loaded>,
): Promise<Loaded> {
  if (!url.startsWith(folder)) return nextLoad(url, context)
  return { format: 'module', source: await readFile(new URL(url)), shortCircuit: true }
}
