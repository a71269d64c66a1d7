// Checks that the docs' complete examples are true. A fenced code block whose info string carries
// `example=<name>` belongs to that example, as the file named by `file=<relative path>`:
//
//   ```ts example=greeter file=src/index.ts
//
// All blocks of one example, in one document, form a package. It is written into a folder of its
// own (a default package.json and tsconfig.json when the example brings none), with `fw` linked
// to this repository and the tools it names linked from this repository's node_modules, so no
// network is needed. The package is type-checked with its own tsconfig.json (one TypeScript
// program), `fw` resolving to the sources through the `fw-source` condition, so no dist/ is
// needed either. Then its tests (`test/**/*.test.ts`) run through uvu and must pass; an example
// without tests whose block says `run` is executed and must exit 0.
import { existsSync, mkdirSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, isAbsolute, join, normalize, relative, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { runOnSources } from '../fixtures/node-on-sources.js'

/** The repository root: `node_modules/fw` links here. */
export const repoRoot = fileURLToPath(new URL('../..', import.meta.url))

/** One file of an example, from one fenced block. */
export interface ExampleFile {
  readonly path: string
  readonly content: string
  /** The block's line in its document (1-based), for messages. */
  readonly line: number
  /** The block's info string says `run`: this file is executed when the example has no tests. */
  readonly run: boolean
}

/** The blocks of one document that share an `example=` name. */
export interface Example {
  readonly name: string
  /** The document, as given to {@link collectExamples} (for messages). */
  readonly source: string
  readonly files: readonly ExampleFile[]
}

/** The attributes of a fence's info string: `ts example=greeter file=src/index.ts run`. */
function attributes(info: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const word of info.trim().split(/\s+/).slice(1)) {
    const eq = word.indexOf('=')
    if (eq === -1) found.set(word, '')
    else found.set(word.slice(0, eq), word.slice(eq + 1).replace(/^["']|["']$/g, ''))
  }
  return found
}

/**
 * The examples of one markdown document, in order of first appearance. Fences of backticks or
 * tildes (three or more, closed by a fence of the same kind at least as long) are read; a block
 * with `example=` but no `file=`, a path leaving the package, or a file given twice is an error.
 */
export function collectExamples(markdown: string, source: string): Example[] {
  const examples = new Map<string, ExampleFile[]>()
  const lines = markdown.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    const open = /^ {0,3}(`{3,}|~{3,})(.*)$/.exec(lines[i]!)
    if (open === null) continue
    const fence = open[1]!
    const body: string[] = []
    let j = i + 1
    const closes = new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`)
    while (j < lines.length && !closes.test(lines[j]!)) body.push(lines[j++]!)
    const attrs = attributes(open[2]!)
    const name = attrs.get('example')
    if (name !== undefined) {
      const where = `${source}:${i + 1}`
      if (name === '') throw new Error(`${where}: \`example=\` needs a name.`)
      const path = attrs.get('file')
      if (path === undefined || path === '')
        throw new Error(`${where}: the block of example '${name}' needs \`file=<relative path>\`.`)
      const clean = normalize(path)
      if (isAbsolute(clean) || clean.startsWith('..') || clean.startsWith('node_modules'))
        throw new Error(`${where}: \`file=${path}\` must be a relative path inside the package.`)
      const files = examples.get(name) ?? []
      if (files.some((f) => f.path === clean))
        throw new Error(`${where}: example '${name}' already has a block for ${clean}.`)
      files.push({
        path: clean,
        content: `${body.join('\n')}\n`,
        line: i + 1,
        run: attrs.has('run'),
      })
      examples.set(name, files)
    }
    i = j
  }
  return [...examples].map(([name, files]) => ({ name, source, files }))
}

/** The package.json of an example that brings none. */
function defaultPackageJson(name: string): string {
  return `${JSON.stringify({ name, private: true, type: 'module' }, null, 2)}\n`
}

/** The tsconfig.json of an example that brings none: strict, NodeNext, everything in the package. */
const DEFAULT_TSCONFIG = `${JSON.stringify(
  {
    compilerOptions: {
      target: 'ES2022',
      lib: ['ES2023'],
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      types: ['node'],
      noEmit: true,
    },
    include: ['**/*.ts'],
  },
  null,
  2,
)}\n`

/** Tools every example may use without naming them (they run its tests and its code). */
const ALWAYS_LINKED = ['typescript', 'tsx', 'uvu', '@types/node']

/** Links `node_modules/<name>` of the package to this repository's copy (fw: the repository). */
function link(dir: string, name: string): void {
  const target = name === 'fw' ? repoRoot : join(repoRoot, 'node_modules', name)
  if (!existsSync(target)) return // not installed here: the type-check will say what is missing
  const at = join(dir, 'node_modules', name)
  if (existsSync(at)) return
  mkdirSync(dirname(at), { recursive: true })
  symlinkSync(target, at, 'dir')
}

/** The dependency names a package.json lists (dependencies, dev, peer, optional). */
function dependencyNames(packageJson: string): string[] {
  const parsed = JSON.parse(packageJson) as Record<string, Record<string, string> | undefined>
  return ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap(
    (key) => Object.keys(parsed[key] ?? {}),
  )
}

/**
 * Writes an example into `dir` (emptied first): its files, a default package.json and
 * tsconfig.json when it has none, and node_modules links for `fw`, the packages its package.json
 * names and the tools that run it. Answers `dir`.
 */
export function writeExample(example: Example, dir: string): string {
  rmSync(dir, { recursive: true, force: true })
  mkdirSync(dir, { recursive: true })
  for (const file of example.files) {
    const at = join(dir, file.path)
    mkdirSync(dirname(at), { recursive: true })
    writeFileSync(at, file.content)
  }
  const pkg = example.files.find((f) => f.path === 'package.json')?.content
  if (pkg === undefined) writeFileSync(join(dir, 'package.json'), defaultPackageJson(example.name))
  if (!example.files.some((f) => f.path === 'tsconfig.json'))
    writeFileSync(join(dir, 'tsconfig.json'), DEFAULT_TSCONFIG)
  for (const name of new Set(['fw', ...ALWAYS_LINKED, ...(pkg ? dependencyNames(pkg) : [])]))
    link(dir, name)
  return dir
}

/** Source files parsed once for every program of the process: fw's sources and libraries. */
const sharedSources = new Map<string, ts.SourceFile>()

/**
 * A compiler host that keeps the source files outside `dir` (fw's sources, `.d.ts` of libraries)
 * across programs: each example is one program, and parsing those again would dominate.
 */
function cachingHost(options: ts.CompilerOptions, dir: string): ts.CompilerHost {
  const host = ts.createCompilerHost(options)
  const read = host.getSourceFile.bind(host)
  const inside = resolve(dir) + sep
  host.getSourceFile = (fileName, languageVersion, onError, shouldCreate) => {
    if (resolve(fileName).startsWith(inside))
      return read(fileName, languageVersion, onError, shouldCreate)
    const key = `${String(typeof languageVersion === 'object' ? languageVersion.languageVersion : languageVersion)}|${fileName}`
    let file = sharedSources.get(key)
    if (file === undefined) {
      file = read(fileName, languageVersion, onError, shouldCreate)
      if (file !== undefined) sharedSources.set(key, file)
    }
    return file
  }
  return host
}

/** A type error, with the file relative to the example's folder. */
export interface Problem {
  readonly file: string | undefined
  readonly line: number | undefined
  readonly message: string
}

function toProblem(d: ts.Diagnostic, dir: string): Problem {
  const message = ts.flattenDiagnosticMessageText(d.messageText, '\n')
  if (d.file === undefined || d.start === undefined)
    return { file: undefined, line: undefined, message }
  const { line } = d.file.getLineAndCharacterOfPosition(d.start)
  return { file: relative(dir, d.file.fileName), line: line + 1, message }
}

/**
 * Type-checks the package in `dir` with its tsconfig.json, `fw` resolving to the TypeScript sources
 * (the `fw-source` condition) and nothing emitted. Answers the problems in the package's own files
 * and in its config; problems inside fw's sources are the repository's typecheck's business.
 */
export function typeCheck(dir: string): Problem[] {
  const configPath = join(dir, 'tsconfig.json')
  const problems: Problem[] = []
  const parsed = ts.getParsedCommandLineOfConfigFile(
    configPath,
    { noEmit: true, customConditions: ['fw-source'] },
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => void problems.push(toProblem(d, dir)),
    },
  )
  if (parsed === undefined) return problems
  problems.push(...parsed.errors.map((d) => toProblem(d, dir)))
  const program = ts.createProgram({
    rootNames: parsed.fileNames,
    options: parsed.options,
    host: cachingHost(parsed.options, dir),
    projectReferences: parsed.projectReferences,
  })
  // Only the package's own files are checked: checking fw's sources too would take seconds per
  // example, and their errors are the repository's typecheck's business.
  const inside = resolve(dir) + sep
  const own = program
    .getSourceFiles()
    .filter((f) => resolve(f.fileName).startsWith(inside) && !f.fileName.includes('/node_modules/'))
  const diagnostics = [
    ...program.getConfigFileParsingDiagnostics(),
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...own.flatMap((f) => [
      ...program.getSyntacticDiagnostics(f),
      ...program.getSemanticDiagnostics(f),
      // With `declaration`, what the build would refuse to declare (an inferred type that names
      // a module the package cannot reach) is an error too, as in `tsc`.
      ...(getEmitDeclarations(parsed.options) && !f.isDeclarationFile
        ? program.getDeclarationDiagnostics(f)
        : []),
    ]),
  ]
  problems.push(...diagnostics.map((d) => toProblem(d, dir)))
  return problems
}

/** Whether the options ask for declarations (`declaration` or `composite`), as `tsc` decides. */
function getEmitDeclarations(options: ts.CompilerOptions): boolean {
  return options.declaration === true || options.composite === true
}

/** Formats problems one per line: `src/index.ts:3: Type 'number' is not assignable …`. */
export function formatProblems(problems: readonly Problem[]): string {
  return problems
    .map((p) => `${p.file ?? '(config)'}${p.line === undefined ? '' : `:${p.line}`}: ${p.message}`)
    .join('\n')
}

/** What running an example's tests or its `run` file gave. */
export interface RunResult {
  readonly command: string
  readonly code: number
  readonly output: string
}

/** Runs `node --import tsx -C fw-source <args>` in `dir`, collecting stdout and stderr. */
async function runNode(
  dir: string,
  args: readonly string[],
  timeoutMs: number,
): Promise<RunResult> {
  // The suite's own FW_APP (if any) must not leak in: an example's CLI test names its own app.
  const run = await runOnSources(dir, args, { timeoutMs, without: ['FW_APP'] })
  return {
    command: run.command,
    code: run.code,
    // uvu colours its report whatever the environment says; the message wants plain text.
    output:
      // eslint-disable-next-line no-control-regex -- the escape that starts a colour
      run.output.replace(/\x1b\[[0-9;]*m/g, '') +
      (run.killed ? `\n(killed after ${timeoutMs} ms)` : ''),
  }
}

/** The test files of the package (`test/**\/*.test.ts`), relative to `dir`. */
export function testFiles(dir: string): string[] {
  const testDir = join(dir, 'test')
  if (!existsSync(testDir)) return []
  return (readdirSync(testDir, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.test.ts'))
    .map((f) => join('test', f))
    .sort()
}

/**
 * Runs the example: its uvu suites when it has any, else the file whose block says `run`.
 * Answers undefined when there is neither (a type-check is all it gets).
 */
export async function runExample(
  example: Example,
  dir: string,
  timeoutMs = 180_000,
): Promise<RunResult | undefined> {
  if (testFiles(dir).length > 0)
    return runNode(dir, ['node_modules/uvu/bin.js', 'test', '\\.test\\.ts$'], timeoutMs)
  const entry = example.files.find((f) => f.run)
  return entry === undefined ? undefined : runNode(dir, [entry.path], timeoutMs)
}

/**
 * Writes `example` into `folder`, type-checks it, then runs it ({@link runExample}). A type error
 * throws, naming the example, the folder and each problem: for the docs' examples and for a
 * package `fw create:plugin` wrote (test/docs/examples.test.ts, test/cli/create-plugin.test.ts).
 */
export async function checkExample(
  example: Example,
  folder: string,
  timeoutMs?: number,
): Promise<{ dir: string; result: RunResult | undefined }> {
  const dir = writeExample(example, folder)
  const problems = typeCheck(dir)
  if (problems.length > 0)
    throw new Error(
      `${example.source}, example '${example.name}' (written to ${dir}) does not type-check:\n${formatProblems(problems)}`,
    )
  return { dir, result: await runExample(example, dir, timeoutMs) }
}
