import { routerErrors, type RouterError } from './router-error.js'

/** One segment of a declared path: literal text or a `{name}` / `{name?}` placeholder. */
export type PathToken =
  | { readonly kind: 'static'; readonly value: string }
  | { readonly kind: 'param'; readonly name: string; readonly optional: boolean }

const PLACEHOLDER = /^\{([A-Za-z_][A-Za-z0-9_]*)(\?)?\}$/
// Names that would reach an object's prototype when used as a key of `params`.
const RESERVED = new Set(['__proto__', 'constructor', 'prototype'])

/** Strips leading and trailing slashes and collapses runs of slashes: `/a//b/` → `a/b`. */
export function trimSlashes(path: string): string {
  return path
    .split('/')
    .filter((s) => s !== '')
    .join('/')
}

/** Joins a group prefix and a path, both normalised; either may be empty. */
export function joinPaths(prefix: string, path: string): string {
  const a = trimSlashes(prefix)
  const b = trimSlashes(path)
  return a === '' ? b : b === '' ? a : `${a}/${b}`
}

/** Splits a declaration such as `/search?type=a` into its normalised path and its query form. */
export function splitDeclaration(raw: string): { path: string; query: string | undefined } {
  // The first '?' outside braces starts the query; '{id?}' marks an optional placeholder.
  let q = -1
  for (let i = 0, depth = 0; i < raw.length && q === -1; i++) {
    const c = raw[i]
    if (c === '{') depth++
    else if (c === '}') depth--
    else if (c === '?' && depth <= 0) q = i
  }
  if (q === -1) return { path: trimSlashes(raw), query: undefined }
  const query = raw.slice(q + 1)
  return { path: trimSlashes(raw.slice(0, q)), query: query === '' ? undefined : query }
}

/** Parses a normalised path into tokens; throws FW_ERR_ROUTER_INVALID_PATH on bad placeholders. */
export function parsePath(path: string): PathToken[] {
  if (path === '') return []
  const segments = path.split('/')
  const seen = new Set<string>()
  return segments.map((segment, i): PathToken => {
    const m = PLACEHOLDER.exec(segment)
    if (m === null) {
      if (segment.includes('{') || segment.includes('}')) {
        throw invalid(
          path,
          `segment '${segment}' mixes a placeholder with text or is malformed; a placeholder fills a whole segment, as in 'files/{name}'`,
        )
      }
      return { kind: 'static', value: segment }
    }
    const name = m[1] as string
    if (RESERVED.has(name))
      throw invalid(path, `'${name}' cannot be a placeholder name; choose another`)
    if (seen.has(name))
      throw invalid(
        path,
        `placeholder '{${name}}' appears twice; give each placeholder its own name`,
      )
    seen.add(name)
    const optional = m[2] === '?'
    if (optional && i !== segments.length - 1) {
      throw invalid(path, `only the last segment may be optional ('{${name}?}')`)
    }
    return { kind: 'param', name, optional }
  })
}

/** The placeholder names of a token list, in order. */
export function paramNames(tokens: readonly PathToken[]): string[] {
  const names: string[] = []
  for (const t of tokens) if (t.kind === 'param') names.push(t.name)
  return names
}

/** Compiles a constraint so that it must match the whole segment, whatever anchors it has. */
export function anchorPattern(pattern: RegExp | string, placeholder: string): RegExp {
  const source = typeof pattern === 'string' ? pattern : pattern.source
  const flags = typeof pattern === 'string' ? '' : pattern.flags.replace(/[gy]/g, '')
  try {
    return new RegExp(`^(?:${source})$`, flags)
  } catch (error) {
    throw routerErrors.error('FW_ERR_ROUTER_INVALID_PATTERN', {
      placeholder,
      reason: (error as Error).message,
    })
  }
}

/**
 * A query string in a canonical form (pairs sorted by key then value, re-encoded), so that two
 * spellings of the same pairs compare equal. Never throws: malformed escapes stay literal.
 */
export function canonicalQuery(query: string): string {
  const pairs = [...new URLSearchParams(query)]
  pairs.sort((a, b) =>
    a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0,
  )
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&')
}

/** Percent-decodes a path segment; undefined when the encoding is malformed. */
export function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment)
  } catch {
    return undefined
  }
}

function invalid(path: string, what: string): RouterError {
  return routerErrors.error('FW_ERR_ROUTER_INVALID_PATH', { path, problem: what })
}

/** Strips leading and trailing slashes from a request path without copying when there are none. */
export function trimRequestPath(path: string): string {
  let start = 0
  let end = path.length
  while (start < end && path.charCodeAt(start) === 47) start++
  while (end > start && path.charCodeAt(end - 1) === 47) end--
  return start === 0 && end === path.length ? path : path.slice(start, end)
}
