#!/usr/bin/env node
// Fails when the project's runtime imports form a cycle, or when a plugin imports another plugin it
// does not declare (CONTRIBUTING.md "Lint and format").
// Cycles: type-only imports (`import type`, `export type … from`, and named imports that are all
// `type`) are erased at compile time and do not count. Every package entry (`fw`, `fw/testing`,
// `fw/cli`, `fw/plugins/*`) resolves to its source, as the `fw-source` condition does.
// Declarations: a file under `plugins/<name>/` may import (types included) only the plugins its
// `index.ts` lists in `dependsOn` or `optionalDependsOn`, and may import values only from those in
// `dependsOn`, or from another entry of an optional one (`fw/plugins/auth/credentials`) whose
// runtime imports never reach that plugin's `index.ts`. Uses TypeScript's parser, so it needs no
// plugin of its own.
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

// The repository, or the folder given (the script's own tests run it on a small tree).
const root = process.argv[2]
  ? resolve(process.argv[2])
  : resolve(dirname(fileURLToPath(import.meta.url)), '..')
const DIRS = ['kernel', 'plugins', 'cli', 'playground']
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
/** Every package entry with a source: `fw/plugins/api` → `plugins/api/index.ts`. */
const SELF = Object.fromEntries(
  Object.entries(pkg.exports)
    .filter(([, target]) => typeof target === 'object' && target['fw-source'])
    .map(([entry, target]) => [
      join('fw', entry).replace(/\\/g, '/'),
      target['fw-source'].slice(2),
    ]),
)

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

/** Every import and re-export of `file`: its specifier, and whether it is erased (type-only). */
function importsOf(file) {
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
      const spec = node.moduleSpecifier.text
      if (clause?.isTypeOnly) {
        specs.push({ spec, type: true })
        continue
      }
      const named = clause?.namedBindings
      const allTypes =
        clause &&
        !clause.name &&
        named &&
        ts.isNamedImports(named) &&
        named.elements.length > 0 &&
        named.elements.every((e) => e.isTypeOnly)
      specs.push({ spec, type: Boolean(allTypes) })
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier) {
      const named = node.exportClause
      const allTypes =
        node.isTypeOnly ||
        (named &&
          ts.isNamedExports(named) &&
          named.elements.length > 0 &&
          named.elements.every((e) => e.isTypeOnly))
      specs.push({ spec: node.moduleSpecifier.text, type: Boolean(allTypes) })
    }
  }
  return specs.map(({ spec, type }) => ({ spec, type, path: resolveSpec(file, spec) }))
}

/** The source file a specifier names, for the project's own modules; else undefined. */
function resolveSpec(file, spec) {
  if (spec in SELF) return join(root, SELF[spec])
  if (spec.startsWith('.')) return resolve(dirname(file), spec.replace(/\.js$/, '.ts'))
  return undefined
}

function runtimeImports(file) {
  return importsOf(file)
    .filter((i) => !i.type && i.path !== undefined)
    .map((i) => i.path)
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

/** `dependsOn` and `optionalDependsOn` of the plugin record in `plugins/<name>/index.ts`. */
function declaredOf(name) {
  const declared = { required: new Set(), optional: new Set() }
  const index = join(root, 'plugins', name, 'index.ts')
  const source = ts.createSourceFile(index, readFileSync(index, 'utf8'), ts.ScriptTarget.Latest)
  const visitNode = (node) => {
    if (
      ts.isPropertyAssignment(node) &&
      ts.isIdentifier(node.name) &&
      (node.name.text === 'dependsOn' || node.name.text === 'optionalDependsOn') &&
      ts.isArrayLiteralExpression(node.initializer)
    ) {
      const into = node.name.text === 'dependsOn' ? declared.required : declared.optional
      for (const e of node.initializer.elements) if (ts.isStringLiteral(e)) into.add(e.text)
    }
    ts.forEachChild(node, visitNode)
  }
  visitNode(source)
  return declared
}

/** The plugin a source path belongs to (`plugins/<name>/…`), if any. */
function pluginOf(path) {
  const rel = relative(join(root, 'plugins'), path)
  return rel.startsWith('..') ? undefined : rel.split(/[\\/]/)[0]
}

/** True when `entry`'s runtime imports, followed, reach `target`. */
function reaches(entry, target, seen = new Set()) {
  if (entry === target) return true
  if (seen.has(entry)) return false
  seen.add(entry)
  return (graph.get(entry) ?? []).some((dep) => reaches(dep, target, seen))
}

const undeclared = []
const declarations = new Map()
for (const file of files) {
  const owner = pluginOf(file)
  if (owner === undefined) continue
  if (!declarations.has(owner)) declarations.set(owner, declaredOf(owner))
  const { required, optional } = declarations.get(owner)
  for (const { spec, type, path } of importsOf(file)) {
    const other = path === undefined ? undefined : pluginOf(path)
    if (other === undefined || other === owner) continue
    const where = `${relative(root, file)} imports ${spec}`
    if (!required.has(other) && !optional.has(other)) {
      undeclared.push(
        `${where}, but plugin '${owner}' does not list '${other}' in dependsOn or optionalDependsOn`,
      )
    } else if (!type && !required.has(other)) {
      const index = join(root, 'plugins', other, 'index.ts')
      if (path === index || reaches(path, index))
        undeclared.push(
          `${where}: a value from '${other}', which '${owner}' lists as optional only. Import it from a module of '${other}' that does not load its index.ts, or reach it through kernel.plugin('${other}')`,
        )
    }
  }
}

if (cycles.length > 0 || undeclared.length > 0) {
  for (const cycle of cycles) console.error(`import cycle: ${cycle.join(' → ')}`)
  for (const line of undeclared) console.error(`undeclared plugin import: ${line}`)
  process.exit(1)
}
console.log(
  `no import cycles among ${files.length} files; every plugin-to-plugin import is declared`,
)
