// Reads handler doc comments from source text, for the API document's summary and description
// (docs/openapi.md "How a route becomes operations"). A small scanner rather than a TypeScript
// parser: it needs only the `/** … */` block right before a function, a `const`, a class or a
// method, and the class a method is in, and loading a compiler would cost `fw api:docs` most of its
// second.

/** A doc comment split as OpenAPI wants it. */
export interface DocComment {
  /** The first sentence. */
  readonly summary: string
  /** The rest, paragraphs kept; undefined when there is none. */
  readonly description: string | undefined
}

/** The text of a `/** … *\/` block, without its stars and its block tags. */
function commentText(block: string): string {
  const lines = block
    .replace(/^\/\*\*/, '')
    .replace(/\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd())
  // The description ends at the first block tag (`@param`, `@returns`, `@example`…).
  const text = lines.join('\n')
  const tag = /(?:^|\s)@[a-z]+\b/.exec(text)
  return (tag === null ? text : text.slice(0, tag.index)).trim()
}

/** Splits a comment into its first sentence and the rest. */
export function splitComment(text: string): DocComment | undefined {
  const flat = text.trim()
  if (flat === '') return undefined
  const end = /[.!?](?=\s|$)/.exec(flat)
  const cut = end === null ? flat.length : end.index + 1
  const summary = flat.slice(0, cut).replace(/\s+/g, ' ').trim()
  // Lines of one paragraph join with a space; blank lines between paragraphs stay.
  const rest = flat
    .slice(cut)
    .trim()
    .replace(/([^\n])\n(?!\n)/g, '$1 ')
  return { summary, description: rest === '' ? undefined : rest }
}

/** Skips a string, template or comment starting at `i`; returns the index after it. */
function skipNonCode(source: string, i: number): number {
  const c = source[i]
  if (c === '/' && source[i + 1] === '/') {
    const nl = source.indexOf('\n', i)
    return nl === -1 ? source.length : nl
  }
  if (c === '/' && source[i + 1] === '*') {
    const close = source.indexOf('*/', i + 2)
    return close === -1 ? source.length : close + 2
  }
  if (c === '"' || c === "'" || c === '`') {
    let j = i + 1
    while (j < source.length && source[j] !== c) j += source[j] === '\\' ? 2 : 1
    return j + 1
  }
  return i
}

/** The index of the `}` that closes the `{` at `open`, strings and comments skipped. */
function closingBrace(source: string, open: number): number {
  let depth = 0
  for (let i = open; i < source.length; i++) {
    const skipped = skipNonCode(source, i)
    if (skipped !== i) {
      i = skipped - 1
      continue
    }
    if (source[i] === '{') depth++
    else if (source[i] === '}' && --depth === 0) return i
  }
  return source.length
}

const DOC = /\/\*\*(?:[^*]|\*(?!\/))*\*\//g
const DECLARATION =
  /^\s*(?:export\s+)?(?:default\s+)?(?:declare\s+)?(?:abstract\s+)?(?:async\s+)?(?:function\s*\*?\s*([A-Za-z_$][\w$]*)|(?:const|let|var)\s+([A-Za-z_$][\w$]*)|class\s+([A-Za-z_$][\w$]*))/
const METHOD =
  /^\s*(?:@[\w.]+(?:\([^)]*\))?\s*)*(?:(?:public|protected|static|override|readonly|async)\s+)*\*?\s*([A-Za-z_$][\w$]*)\s*[(<=]/

/**
 * The doc comments of a module's declarations: a function or `const` by its name, a class by its
 * name, a method as `Class.method`.
 */
export function docComments(source: string): Map<string, DocComment> {
  const found = new Map<string, DocComment>()
  const classes: { name: string; start: number; end: number }[] = []
  for (const m of source.matchAll(/\bclass\s+([A-Za-z_$][\w$]*)[^{]*\{/g)) {
    const open = m.index + m[0].length - 1
    classes.push({ name: m[1]!, start: open, end: closingBrace(source, open) })
  }
  for (const m of source.matchAll(DOC)) {
    const after = source.slice(m.index + m[0].length, m.index + m[0].length + 400)
    const comment = splitComment(commentText(m[0]))
    if (comment === undefined) continue
    const at = m.index
    const owner = classes.find((c) => c.start < at && at < c.end)
    if (owner !== undefined) {
      const method = METHOD.exec(after)
      if (method !== null) found.set(`${owner.name}.${method[1]}`, comment)
      continue
    }
    const declared = DECLARATION.exec(after)
    const name = declared?.[1] ?? declared?.[2] ?? declared?.[3]
    if (name !== undefined) found.set(name, comment)
  }
  return found
}
