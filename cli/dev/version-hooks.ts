// Module loader hooks of `fw dev` (registered with `module.register`, run on Node's hooks thread):
// they give every module of the app's own folder a version in its URL (`?fw-v=N`), and bump the
// version of a changed file and of every module that imports it, directly or not. Importing the
// app again then evaluates the changed modules anew and reuses every other one: the unchanged
// modules' state (an entity declaration, a cache) stays, and only what changed costs memory.
import type { MessagePort } from 'node:worker_threads'
import type { NextResolve, ResolveContext, Resolved } from '../loader-hooks.js'

/** What `fw dev` registers the hooks with. */
export interface VersionHooksData {
  /** The app's folder as a `file:` URL ending in `/`: its modules are versioned, no other. */
  readonly root: string
  /** Receives `{ id, changed: fileUrls }`; each is answered `{ id, bumped: count }`. */
  readonly port: MessagePort
}

let root = ''
/** Who imports each module (module → its importers), both without their version. */
const importers = new Map<string, Set<string>>()
const versions = new Map<string, number>()
let generation = 0
/**
 * Resolutions already made (importer without version, then specifier): a build imports the same
 * few hundred specifiers again, and asking tsx and Node each time costs more than evaluating the
 * changed modules. A failed resolution is not kept; `reset` (a package.json changed) empties it.
 */
const resolved = new Map<string, Resolved>()

function bare(url: string): string {
  const end = url.search(/[?#]/)
  return end === -1 ? url : url.slice(0, end)
}

function owned(url: string): boolean {
  return url.startsWith(root) && !url.includes('/node_modules/')
}

/** Gives the changed files and all their importers a new version; answers how many. */
function bump(changed: readonly string[]): number {
  const seen = new Set<string>()
  const queue = [...changed]
  for (let url = queue.pop(); url !== undefined; url = queue.pop()) {
    if (seen.has(url)) continue
    seen.add(url)
    for (const importer of importers.get(url) ?? []) queue.push(importer)
  }
  generation += 1
  for (const url of seen) versions.set(url, generation)
  return seen.size
}

export function initialize(data: VersionHooksData): void {
  root = data.root
  data.port.on('message', (message: { id: number; changed: string[]; reset: boolean }) => {
    if (message.reset) resolved.clear()
    data.port.postMessage({ id: message.id, bumped: bump(message.changed) })
  })
  data.port.unref()
}

export async function resolve(
  specifier: string,
  context: ResolveContext,
  nextResolve: NextResolve,
): Promise<Resolved> {
  const parent = context.parentURL === undefined ? undefined : bare(context.parentURL)
  const key = `${parent ?? ''}\n${specifier}`
  let found = resolved.get(key)
  if (found === undefined) {
    found = await nextResolve(specifier, context)
    if (parent !== undefined && owned(parent)) resolved.set(key, { ...found, shortCircuit: true })
  }
  if (!owned(found.url)) return found
  const url = bare(found.url)
  if (parent !== undefined && owned(parent)) {
    const known = importers.get(url)
    if (known === undefined) importers.set(url, new Set([parent]))
    else known.add(parent)
  }
  const version = versions.get(url)
  if (version === undefined) return found
  const versioned = new URL(found.url)
  versioned.searchParams.set('fw-v', String(version))
  return { ...found, url: versioned.href }
}
