// Redaction at capture time: what enters a debug payload (query parameters, request bodies,
// session values, log context, SQL parameters) has its secrets replaced with `***` first, by the
// kernel's one rule (`kernel.redaction`, docs/redaction.md). This file adds what only SQL needs:
// which column a bound parameter belongs to.
import { isSecretKey, MASK, redact, type Redaction } from 'fw'

/**
 * The bound parameters of a statement with secrets masked: a parameter whose column (`"col" = ?`,
 * or its place in an `insert … (cols) values (?, …)` list) names a secret, or whose value looks
 * like a credential, becomes `***`. Keys are judged by `redaction` (the kernel's, with the keys
 * plugins added), or by the built-in list without one.
 */
export function redactParams(
  sql: string,
  params: readonly unknown[],
  redaction?: Redaction,
): unknown[] {
  if (params.length === 0) return []
  const columns = placeholderColumns(sql)
  const secretKey = redaction?.isSecretKey ?? isSecretKey
  const clean = redaction?.redact ?? redact
  return params.map((p, i) => {
    const column = columns[i]
    if (column !== undefined && secretKey(column)) return MASK
    return clean(p)
  })
}

/** For each `?` placeholder (in order), the column it is compared with or inserted into, if known. */
function placeholderColumns(sql: string): (string | undefined)[] {
  const out: (string | undefined)[] = []
  const insert = /^\s*insert\s+into\s+\S+\s*\(([^)]*)\)\s*values\s*\(/i.exec(sql)
  let from = 0
  if (insert !== null) {
    const cols = insert[1]!.split(',').map((c) => c.trim().replace(/^"|"$/g, ''))
    // The first values tuple, split at top-level commas: each `?` gets the column at its place.
    let depth = 0
    let item = 0
    let i = insert[0].length
    for (; i < sql.length; i++) {
      const c = sql[i]
      if (c === '(') depth++
      else if (c === ')') {
        if (depth === 0) break
        depth--
      } else if (c === ',' && depth === 0) item++
      else if (c === '?') out.push(cols[item])
    }
    from = i
  }
  const re = /(?:"([^"]+)"|([A-Za-z_][A-Za-z0-9_]*))\s*(?:=|<>|!=|like|ilike|in\s*\()\s*\(?\s*$/i
  for (let i = from; i < sql.length; i++) {
    if (sql[i] !== '?') continue
    const m = re.exec(sql.slice(Math.max(0, i - 80), i))
    out.push(m === null ? undefined : (m[1] ?? m[2]))
  }
  return out
}
