#!/usr/bin/env node
// Fails when the project's runtime imports form a cycle (CONTRIBUTING.md "Lint and format").
// Type-only imports (`import type`, `export type … from`, and named imports that are all `type`)
// are erased at compile time and do not count. `fw` and `fw/testing` resolve to their sources, as
// the `fw-source` condition does. Uses TypeScript's parser, so it needs no plugin of its own.
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const DIRS = ['kernel', 'plugins', 'cli', 'playground']
const SELF = { fw: 'kernel/index.ts', 'fw/testing': 'kernel/testing.ts' }

function walk(dir, out = []) {
  let entries
  try {
    entries = readdirSync(dir)
  } catch {
    return out // a folder that does not exist yet (plugins/)
  }
  for (const name of entries) {
    const path = join(dir, name)
    if (name === 'node_modules' || name === 'var' || name === 'test') continue
    if (statSync(path).isDirectory()) walk(path, out)
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path)
  }
  return out
}

function runtimeImports(file) {
  const source = ts.createSourceFile(
    file,
    readFileSync(file, 'utf8'),
    ts.ScriptTarget.Latest,
    false,
  )
  const specs = []
  for (const node of source.statements) {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      if (clause?.isTypeOnly) continue
      const named = clause?.namedBindings
      const allTypes =
        clause &&
        !clause.name &&
        named &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly)
      if (allTypes) continue
      specs.push(node.moduleSpecifier.text)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      const named = node.exportClause
      if (
        named &&
        ts.isNamedExports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly)
      )
        continue
      specs.push(node.moduleSpecifier.text)
    }
  }
  const resolved = []
  for (const spec of specs) {
    if (spec in SELF) resolved.push(join(root, SELF[spec]))
    else if (spec.startsWith('.'))
      resolved.push(resolve(dirname(file), spec.replace(/\.js$/, '.ts')))
  }
  return resolved
}

const files = DIRS.flatMap((d) => walk(join(root, d)))
const graph = new Map(files.map((f) => [f, runtimeImports(f)]))
const state = new Map()
const cycles = []
function visit(file, stack) {
  if (state.get(file) === 'done') return
  if (state.get(file) === 'open') {
    cycles.push([...stack.slice(stack.indexOf(file)), file].map((f) => relative(root, f)))
    return
  }
  state.set(file, 'open')
  for (const dep of graph.get(file) ?? []) if (graph.has(dep)) visit(dep, [...stack, file])
  state.set(file, 'done')
}
for (const file of files) visit(file, [])
if (cycles.length > 0) {
  for (const cycle of cycles) console.error(`import cycle: ${cycle.join(' → ')}`)
  process.exit(1)
}
console.log(`no import cycles among ${files.length} files`)
