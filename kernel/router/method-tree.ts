import { canonicalQuery, safeDecode } from './path.js'
import type { TreeEntry } from './tree-entry.js'

/** A placeholder child: its constraint (anchored) and the node below it. */
interface ParamLink {
  readonly re: RegExp | undefined
  readonly node: MethodNode
}

/** A static child in a node's hash table, with the hash of its segment. */
interface StaticChild {
  readonly key: string
  readonly hash: number
  readonly node: MethodNode
}

/**
 * A node of the tree of one HTTP method. Every field exists on every node (one hidden class).
 * Static children are found without slicing the path: a lone child is compared in place; two or
 * more sit in an open-addressing hash table (linear probing, at most half full) keyed by a hash of
 * the segment computed while scanning for the next `/`, which costs a fraction of slicing the
 * segment and hashing the fresh string, and a probe of a plain array a fraction of a Map's `get`.
 * A node with two children and one with thousands take the same steps, so a lookup costs the same
 * in a small app and a large one (comparing two to four children in place instead measured no
 * faster on a small app's paths).
 */
export class MethodNode {
  entry: TreeEntry | undefined = undefined
  variants: Map<string, TreeEntry> | undefined = undefined
  single: string | undefined = undefined
  singleNode: MethodNode | undefined = undefined
  /** `single` when it holds no `%` (the walk then compares it in place), else undefined. */
  plainSingle: string | undefined = undefined
  table: (StaticChild | undefined)[] | undefined = undefined
  /** `32 - log2(table.length)`: a hash's slot is its Fibonacci product's top bits. */
  shift = 0
  /** Constrained placeholders first, the unconstrained one last. */
  params: ParamLink[] | undefined = undefined

  /** Sets the static children. */
  setChildren(children: readonly (readonly [string, MethodNode])[]): void {
    if (children.length === 1) {
      ;[this.single, this.singleNode] = children[0] as [string, MethodNode]
      if (!this.single.includes('%')) this.plainSingle = this.single
    }
    if (children.length < 2) return
    let bits = 1
    while (1 << bits < children.length * 2) bits++
    const table = new Array<StaticChild | undefined>(1 << bits).fill(undefined)
    const mask = table.length - 1
    for (const [key, node] of children) {
      const hash = segmentHash(key, 0, key.length)
      let slot = Math.imul(hash, FIBONACCI) >>> (32 - bits)
      while (table[slot] !== undefined) slot = (slot + 1) & mask
      table[slot] = { key, hash, node }
    }
    this.table = table
    this.shift = 32 - bits
  }

  /** The static child called `segment` (already decoded), if any. */
  child(segment: string): MethodNode | undefined {
    if (this.single !== undefined) return segment === this.single ? this.singleNode : undefined
    return this.table === undefined
      ? undefined
      : lookup(this, segmentHash(segment, 0, segment.length), segment, 0, segment.length)
  }
}

/** The hash of `s[start, end)`; the walk computes the same value inline while it scans. */
function segmentHash(s: string, start: number, end: number): number {
  let h = 0
  for (let i = start; i < end; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0
  return h & SMI
}

// Hashes are cut to 30 bits so that they stay small integers (Smis), which a Map hashes fastest.
const SMI = 0x3fffffff

// 2^32 / φ: multiplying by it spreads nearby hashes (`r1`, `r2`, …) over the whole table.
const FIBONACCI = 0x9e3779b1 | 0

/** The static child of `node` (which has a table) whose segment is `path[start, end)`, hashing to `h`. */
function lookup(
  node: MethodNode,
  h: number,
  path: string,
  start: number,
  end: number,
): MethodNode | undefined {
  const table = node.table as (StaticChild | undefined)[]
  const mask = table.length - 1
  for (let slot = Math.imul(h, FIBONACCI) >>> node.shift; ; slot = (slot + 1) & mask) {
    const c = table[slot]
    if (c === undefined) return undefined
    if (c.hash === h && c.key.length === end - start && sameAt(path, start, c.key)) return c.node
  }
}

/** True when `key` occurs in `path` at `start`; a plain loop beats `startsWith` on short segments. */
function sameAt(path: string, start: number, key: string): boolean {
  for (let k = 0; k < key.length; k++)
    if (path.charCodeAt(start + k) !== key.charCodeAt(k)) return false
  return true
}

/**
 * The routes answering one method (HEAD includes the GET routes it falls back to). Lookup:
 * one Map probe of the raw path for static routes, otherwise a walk whose cost depends on the
 * depth of the path, never on the number of routes.
 */
export class MethodTree {
  /**
   * Fully static paths, with and without the leading slash (other spellings take the walk). A
   * Map keyed by the path string is the quickest probe there is when V8 already knows the
   * string's hash; a freshly received path must be hashed first (measured: a JS hash computed
   * while scanning the path was slower overall, so the native one stays).
   */
  readonly #statics = new Map<string, MethodNode>()
  /**
   * For each length of a static key (256 standing for any longer one), a bit per last character
   * (its code mod 32) that such a key ends with: a path whose length and last character no key has
   * skips the probe, and with it hashing a fresh string that cannot be a key. Paths with a
   * placeholder value (`/items/42`) mostly end in characters static paths do not.
   */
  readonly #tails = new Uint32Array(257)
  readonly root: MethodNode

  constructor(root: MethodNode) {
    this.root = root
  }

  /** Indexes a static path (normalised: no leading or trailing slash) for the fast path. */
  addStatic(path: string, node: MethodNode): void {
    this.#statics.set(path, node).set(`/${path}`, node)
    // The empty path ("" and "/") ends in "/" when it has a character at all.
    const bit = 1 << ((path === '' ? 47 : path.charCodeAt(path.length - 1)) & 31)
    this.#tails[Math.min(path.length, 256)]! |= bit
    this.#tails[Math.min(path.length + 1, 256)]! |= bit
  }

  /** The entry for `path` (leading/trailing slashes ignored, `?…` split off), writing placeholder values into `values`. */
  find(path: string, querystring: string | undefined, values: string[]): TreeEntry | undefined {
    let query = querystring === '' ? undefined : querystring
    let stop = path.indexOf('?')
    if (stop === -1) stop = path.length
    else if (query === undefined)
      query = stop + 1 === path.length ? undefined : path.slice(stop + 1)
    const last = stop === 0 ? 47 : path.charCodeAt(stop - 1)
    if (((this.#tails[stop < 256 ? stop : 256]! >>> (last & 31)) & 1) === 1) {
      const node = this.#statics.get(stop === path.length ? path : path.slice(0, stop))
      if (node !== undefined) {
        const entry = leafEntry(node, query)
        if (entry !== undefined) return entry
      }
    }
    let start = 0
    while (start < stop && path.charCodeAt(start) === 47) start++
    while (stop > start && path.charCodeAt(stop - 1) === 47) stop--
    const entry = walk(this.root, path, start, stop, query, values, 0)
    return entry === ENCODED
      ? walkDecoded(this.root, path.slice(start, stop), query, values)
      : entry
  }
}

/**
 * What the walk answers when it meets a `%` in a segment it has to look at: the path is walked
 * again, split and decoded. Any branch reaching that segment would see it, and a walk that fails
 * before it fails the same way decoded (the segments before it hold no `%`).
 */
const ENCODED = Object.freeze({}) as TreeEntry

function leafEntry(node: MethodNode, query: string | undefined): TreeEntry | undefined {
  if (query !== undefined && node.variants !== undefined) {
    const entry = node.variants.get(canonicalQuery(query))
    if (entry !== undefined) return entry
  }
  return node.entry
}

// Recursion depth is bounded by the depth of the tree, not by the number of segments in the path;
// a step with nothing to come back to (no placeholder after a static child, a single
// unconstrained placeholder) loops instead of recursing. `n` is the number of placeholder values
// written so far.
function walk(
  node: MethodNode,
  path: string,
  start: number,
  stop: number,
  query: string | undefined,
  values: string[],
  n: number,
): TreeEntry | undefined {
  for (;;) {
    if (start >= stop) return leafEntry(node, query)
    let end = start
    let child: MethodNode | undefined
    const single = node.plainSingle
    if (
      single !== undefined &&
      sameAt(path, start, single) &&
      (start + single.length === stop || path.charCodeAt(start + single.length) === 47)
    ) {
      // The only static child matches in place: no scan for the segment's end.
      end = start + single.length
      child = node.singleNode
    } else if (node.table !== undefined) {
      // Scan to the end of the segment by hand, hashing it: cheaper than indexOf and a slice.
      let h = 0
      for (; end < stop; end++) {
        const c = path.charCodeAt(end)
        if (c === 47) break
        if (c === 37) return ENCODED
        h = (Math.imul(h, 31) + c) | 0
      }
      child = lookup(node, h & SMI, path, start, end)
    } else {
      // No static child can match: a lone child holding a `%` is spelt only by a segment holding
      // one, which is walked decoded. Find the segment's end for a placeholder.
      for (; end < stop; end++) {
        const c = path.charCodeAt(end)
        if (c === 47) break
        if (c === 37) return ENCODED
      }
    }
    const links = node.params
    if (child !== undefined) {
      if (links === undefined) {
        node = child
        start = end + 1
        continue
      }
      const entry = walk(child, path, end + 1, stop, query, values, n)
      if (entry !== undefined) return entry
    }
    if (links === undefined || !isParamValue(path, start, end)) return undefined
    const value = path.slice(start, end)
    const last = links[links.length - 1] as ParamLink
    for (let i = 0; i < links.length - 1; i++) {
      const link = links[i] as ParamLink
      if (link.re !== undefined && !link.re.test(value)) continue
      values[n] = value
      const entry = walk(link.node, path, end + 1, stop, query, values, n + 1)
      if (entry !== undefined) return entry
    }
    // The last alternative: nothing to come back to after it.
    if (last.re !== undefined && !last.re.test(value)) return undefined
    values[n++] = value
    node = last.node
    start = end + 1
  }
}

/** The walk for a path holding `%`: segments are split first, then decoded (malformed → no match). */
function walkDecoded(
  root: MethodNode,
  path: string,
  query: string | undefined,
  values: string[],
): TreeEntry | undefined {
  const segments = decodeSegments(path)
  return segments === undefined ? undefined : walkSegments(root, segments, 0, query, values, 0)
}

function walkSegments(
  node: MethodNode,
  segments: readonly string[],
  i: number,
  query: string | undefined,
  values: string[],
  n: number,
): TreeEntry | undefined {
  if (i === segments.length) return leafEntry(node, query)
  const segment = segments[i] as string
  const child = node.child(segment)
  if (child !== undefined) {
    const entry = walkSegments(child, segments, i + 1, query, values, n)
    if (entry !== undefined) return entry
  }
  if (node.params === undefined || !isParamValue(segment, 0, segment.length)) return undefined
  for (const link of node.params) {
    if (link.re !== undefined && !link.re.test(segment)) continue
    values[n] = segment
    const entry = walkSegments(link.node, segments, i + 1, query, values, n + 1)
    if (entry !== undefined) return entry
  }
  return undefined
}

/** Splits a trimmed path on `/` and percent-decodes each segment; undefined when one is malformed. */
export function decodeSegments(path: string): string[] | undefined {
  const segments = path === '' ? [] : path.split('/')
  for (let i = 0; i < segments.length; i++) {
    const raw = segments[i] as string
    if (!raw.includes('%')) continue
    const decoded = safeDecode(raw)
    if (decoded === undefined) return undefined
    segments[i] = decoded
  }
  return segments
}

/**
 * A placeholder never takes an empty segment nor a dot segment (`.` or `..`), so that a
 * placeholder value can never walk up a directory, whatever the handler does with it.
 */
export function isParamValue(s: string, start: number, end: number): boolean {
  const length = end - start
  if (length === 0) return false
  if (length > 2 || s.charCodeAt(start) !== 46) return true
  return length === 2 && s.charCodeAt(start + 1) !== 46
}
