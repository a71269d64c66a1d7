import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Command, Option } from 'clipanion'
import type { FwContext } from '../context.js'

/** fw's package root, from src (`cli/commands`) and from dist (`dist/cli/commands`) alike. */
function fwRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'docs', 'writing-a-plugin.md')) && dirname(dir) !== dir)
    dir = dirname(dir)
  return dir
}

/**
 * The files of the guide's complete example (`docs/writing-a-plugin.md`, the blocks marked
 * `example=greeter file=<path>`): the scaffold is that package, renamed, so it is exactly what the
 * suite type-checks and tests, and cannot drift from the guide.
 */
export function guideFiles(markdown: string): Map<string, string> {
  const files = new Map<string, string>()
  const block = /^```\w*[^\n]*\bexample=greeter\b[^\n]*\bfile=(\S+)[^\n]*\n([\s\S]*?)^```\s*$/gm
  for (const [, path, body] of markdown.matchAll(block)) files.set(path!, body!)
  return files
}

/** A plugin name usable as a config key, an identifier stem and an npm name: `visits`, `rate_limit`. */
const NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/

/** `rate_limit` → `rateLimit`. */
function camelOf(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())
}

/** `greeter` → `name` in each spelling the example uses. */
function rename(text: string, name: string, fwDir: string): string {
  const camel = camelOf(name)
  const pascal = camel[0]!.toUpperCase() + camel.slice(1)
  return text
    .replaceAll('"fw": "file:../fw"', `"fw": ${JSON.stringify(`file:${fwDir}`)}`)
    .replaceAll('GREETER', name.toUpperCase())
    .replaceAll('Greeter', pascal)
    .replaceAll('greeterCheck', `${camel}Check`)
    .replaceAll('greeter', name)
}

function readme(name: string): string {
  return `# fw-plugin-${name}

An fw plugin, scaffolded by \`fw create:plugin ${name}\` from fw's plugin guide
(\`docs/writing-a-plugin.md\` in fw), which explains every file.

- \`GET /greet/{name}\` answers \`{ message, visits }\` and records a \`${name}.greeted\` event; the
  response carries \`x-greeted\`.
- Config key \`${name}.greeting\` (string, default \`Hello\`; env \`${name.toUpperCase()}_GREETING\`).
- Uses the database plugin (raw SQL) and the health plugin (check \`${name}\`) when registered.
- \`fw ${name}:greet <name>\` prints a greeting.
- Error code \`FW_ERR_${name.toUpperCase()}_PREFIX\`: at setup, the \`prefix\` option is not a plain
  path (lowercase segments such as \`hello\`).

## Develop

\`\`\`sh
npm install
npm test        # type-check, then the uvu suite
npm run build   # dist/ with declarations
\`\`\`

## Use in an app

\`\`\`ts
import ${camelOf(name)} from 'fw-plugin-${name}'
kernel.register(${camelOf(name)})
\`\`\`
`
}

/** `fw create:plugin <name>`: scaffolds a plugin package (plugin, command, health check, tests). */
export class CreatePluginCommand extends Command<FwContext> {
  static override paths = [['create:plugin']]
  /** Runs anywhere: needs no app. */
  static readonly needsApp = false

  static override usage = Command.Usage({
    category: 'Plugins',
    description: 'Scaffold a plugin package',
    details: `
      Writes a complete plugin package into \`fw-plugin-<name>\` (or \`--dir\`): package.json, tsconfigs, the plugin (a route, an event and a header from the request's log, a config slice, optional use of the database and health plugins), a CLI command, a health check, an error code registry, tests and a README. It is the package of fw's plugin guide, renamed. Then \`npm install && npm test\` in that folder.

      The name is lowercase letters and digits, words joined by \`_\`. The folder must not exist or be empty.
    `,
    examples: [['Scaffold fw-plugin-visits', '$0 create:plugin visits']],
  })

  name = Option.String({ name: 'name' })
  dir = Option.String('--dir', { description: 'Where to write the package' })

  override async execute(): Promise<number> {
    const { stdout, stderr } = this.context
    if (!NAME.test(this.name)) {
      stderr.write(
        `'${this.name}' is not a usable plugin name: use lowercase letters and digits, words joined by _ (e.g. visits, rate_limit).\n`,
      )
      return 1
    }
    const target = resolve(this.context.kernel.root, this.dir ?? `fw-plugin-${this.name}`)
    if (existsSync(target) && readdirSync(target).length > 0) {
      stderr.write(`${target} exists and is not empty. Pick another --dir, or empty it.\n`)
      return 1
    }
    const root = fwRoot()
    const files = guideFiles(readFileSync(join(root, 'docs', 'writing-a-plugin.md'), 'utf8'))
    files.set('README.md', readme(this.name))
    for (const [path, content] of files) {
      const out = join(target, rename(path, this.name, root))
      mkdirSync(dirname(out), { recursive: true })
      writeFileSync(out, rename(content, this.name, root))
    }
    const where = relative(this.context.kernel.root, target) || '.'
    stdout.write(
      `Created fw-plugin-${this.name} in ${where} (${files.size} files).\nNext: cd ${where} && npm install && npm test\n`,
    )
    return 0
  }
}
