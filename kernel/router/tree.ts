import { HTTP_METHODS, type HttpMethod } from '../types.js'
import { describeRoute, type ParsedRoute } from './parse-route.js'
import { decodeSegments, isParamValue, MethodNode, MethodTree } from './method-tree.js'
import { canonicalQuery, trimRequestPath } from './path.js'

import { routerErrors } from './router-error.js'
import { createEntry, type TreeEntry } from './tree-entry.js'

/** The routes ending at one node for one query form (or for no query form). */
interface Leaf {
  readonly declared: Map<HttpMethod, TreeEntry>
  /** `declared` plus HEAD answered by GET where no HEAD is declared; filled by `finish()`. */
  lookup: Map<string, TreeEntry>
  /** Sorted methods this leaf answers, HEAD included wherever GET is. */
  allowed: readonly string[]
}

/** A placeholder edge; edges with the same constraint share a node whatever the placeholder's name. */
interface ParamEdge {
  readonly key: string
  readonly re: RegExp | undefined
  readonly node: TreeNode
}

class TreeNode {
  statics: Map<string, TreeNode> | undefined
  /** Constrained edges first, in declaration order; the unconstrained edge (if any) last. */
  params: ParamEdge[] | undefined
  plain: Leaf | undefined
  variants: Map<string, Leaf> | undefined
  /** The methods answered in this subtree, set by `finish()`: projection skips the rest. */
  methods = new Set<string>()
}

/**
 * The matching structure. Routes are inserted into one segment tree (all methods), which detects
 * duplicates and answers `allowed()`; `finish()` then projects it into one {@link MethodTree} per
 * method, which `find()` walks: static children before placeholders, cost independent of the
 * number of routes.
 */
export class RouteTree {
  readonly #root = new TreeNode()
  readonly #leaves: Leaf[] = []
  /** Each method in upper and lower case: its tree, or null when no route answers it. */
  readonly #byMethod = new Map<string, MethodTree | null>()

  /** Places a parsed route; an optional last placeholder places it with and without that segment. */
  insert(parsed: ParsedRoute): void {
    let node = this.#root
    const names: string[] = []
    for (const token of parsed.tokens) {
      if (token.kind === 'param' && token.optional) this.#place(node, parsed, names)
      if (token.kind === 'static') {
        node.statics ??= new Map()
        let child = node.statics.get(token.value)
        if (child === undefined) node.statics.set(token.value, (child = new TreeNode()))
        node = child
      } else {
        names.push(token.name)
        node = paramChild(node, parsed.constraints.get(token.name))
      }
    }
    this.#place(node, parsed, names)
  }

  /** Resolves HEAD-from-GET and allowed methods, and builds the per-method trees; call after every insert. */
  finish(): void {
    for (const leaf of this.#leaves) {
      leaf.lookup = new Map(leaf.declared)
      const get = leaf.declared.get('GET')
      if (get !== undefined && !leaf.declared.has('HEAD')) leaf.lookup.set('HEAD', get)
      leaf.allowed = [...leaf.lookup.keys()].sort()
    }
    gatherMethods(this.#root)
    for (const method of HTTP_METHODS) {
      const statics = new Map<string, MethodNode>()
      const root = project(this.#root, method, '', statics)
      if (root === undefined) {
        // No route answers this method: find() stops at the first probe.
        this.#byMethod.set(method, null).set(method.toLowerCase(), null)
        continue
      }
      const tree = new MethodTree(root)
      for (const [path, node] of statics) tree.addStatic(path, node)
      this.#byMethod.set(method, tree)
      this.#byMethod.set(method.toLowerCase(), tree)
    }
  }

  /** The tree of one method (upper or lower case); undefined for an unknown method or one no route answers. */
  method(method: string): MethodTree | undefined {
    const tree = this.#byMethod.get(method)
    if (tree !== undefined) return tree ?? undefined
    return this.#byMethod.get(method.toUpperCase()) ?? undefined
  }

  /** Adds to `out` every method answered on `path` by any route whose pattern matches it. */
  allowed(path: string, query: string | undefined, out: Set<string>): void {
    const segments = decodeSegments(trimRequestPath(path))
    if (segments !== undefined) collect(this.#root, segments, 0, query, out)
  }

  #place(node: TreeNode, parsed: ParsedRoute, names: readonly string[]): void {
    let leaf: Leaf | undefined
    if (parsed.queryKey === undefined) leaf = node.plain ??= this.#newLeaf()
    else {
      node.variants ??= new Map()
      leaf = node.variants.get(parsed.queryKey)
      if (leaf === undefined) node.variants.set(parsed.queryKey, (leaf = this.#newLeaf()))
    }
    const { route } = parsed
    const entry = createEntry(route, [...names])
    for (const method of route.methods) {
      const taken = leaf.declared.get(method)
      if (taken !== undefined) {
        throw routerErrors.error('FW_ERR_ROUTER_DUPLICATE_ROUTE', {
          method,
          path: route.path,
          first: describeRoute(taken.route),
        })
      }
      leaf.declared.set(method, entry)
    }
  }

  #newLeaf(): Leaf {
    const leaf: Leaf = { declared: new Map(), lookup: new Map(), allowed: [] }
    this.#leaves.push(leaf)
    return leaf
  }
}

function paramChild(node: TreeNode, re: RegExp | undefined): TreeNode {
  const key = re === undefined ? '' : `${re.source}/${re.flags}`
  node.params ??= []
  const existing = node.params.find((e) => e.key === key)
  if (existing !== undefined) return existing.node
  const edge: ParamEdge = { key, re, node: new TreeNode() }
  // Keep the unconstrained edge last so that constrained placeholders get the first chance.
  const free = node.params.findIndex((e) => e.re === undefined)
  if (re !== undefined && free !== -1) node.params.splice(free, 0, edge)
  else node.params.push(edge)
  return edge.node
}

/**
 * The part of the tree that answers `method`, or undefined when none of it does. `path` is the
 * static path reaching `node` (undefined below a placeholder); static leaves are indexed by it.
 */
function project(
  node: TreeNode,
  method: string,
  path: string | undefined,
  statics: Map<string, MethodNode>,
): MethodNode | undefined {
  if (!node.methods.has(method)) return undefined
  const out = new MethodNode()
  let used = false
  out.entry = node.plain?.lookup.get(method)
  for (const [key, leaf] of node.variants ?? []) {
    const entry = leaf.lookup.get(method)
    if (entry !== undefined) (out.variants ??= new Map()).set(key, entry)
  }
  if (out.entry !== undefined || out.variants !== undefined) {
    used = true
    if (path !== undefined && !path.includes('%')) statics.set(path, out)
  }
  const children: [string, MethodNode][] = []
  for (const [segment, child] of node.statics ?? []) {
    const projected = project(
      child,
      method,
      path === undefined ? undefined : path === '' ? segment : `${path}/${segment}`,
      statics,
    )
    if (projected !== undefined) children.push([segment, projected])
  }
  out.setChildren(children)
  for (const edge of node.params ?? []) {
    const projected = project(edge.node, method, undefined, statics)
    if (projected !== undefined) (out.params ??= []).push({ re: edge.re, node: projected })
  }
  return used || children.length > 0 || out.params !== undefined ? out : undefined
}

function gatherMethods(node: TreeNode): Set<string> {
  const methods = node.methods
  for (const m of node.plain?.allowed ?? []) methods.add(m)
  for (const leaf of node.variants?.values() ?? []) for (const m of leaf.allowed) methods.add(m)
  for (const child of node.statics?.values() ?? [])
    for (const m of gatherMethods(child)) methods.add(m)
  for (const edge of node.params ?? []) for (const m of gatherMethods(edge.node)) methods.add(m)
  return methods
}

function collect(
  node: TreeNode,
  segments: readonly string[],
  i: number,
  query: string | undefined,
  out: Set<string>,
): void {
  if (i === segments.length) {
    if (query !== undefined && node.variants !== undefined) {
      for (const m of node.variants.get(canonicalQuery(query))?.allowed ?? []) out.add(m)
    }
    for (const m of node.plain?.allowed ?? []) out.add(m)
    return
  }
  const segment = segments[i] as string
  const child = node.statics?.get(segment)
  if (child !== undefined) collect(child, segments, i + 1, query, out)
  if (node.params === undefined || !isParamValue(segment, 0, segment.length)) return
  for (const edge of node.params) {
    if (edge.re === undefined || edge.re.test(segment))
      collect(edge.node, segments, i + 1, query, out)
  }
}
