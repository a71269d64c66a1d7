import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Command, Option } from 'clipanion'
import { builtinCommand } from '../builtin-command.js'

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

/**
 * A plugin name, the npm way: lowercase letters and digits, words joined by single hyphens
 * (`visits`, `hello-stats`). It is the plugin's name, the area of its events, routes, taps and
 * command paths, and the end of the package name; the other spellings derive from it.
 */
const NAME = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/

/** The spellings of one plugin name, as each place needs it. */
export interface PluginNames {
  /** `hello-stats`: `definePlugin({ name })`, events, routes, taps, command paths, headers. */
  readonly name: string
  /** `hello_stats`: the config area, health check names, SQL tables. */
  readonly snake: string
  /** `helloStats`: variables and functions. */
  readonly camel: string
  /** `HelloStats`: types and classes. */
  readonly pascal: string
  /** `HELLO_STATS`: environment variables and error codes. */
  readonly upper: string
}

/** The spellings of `name` (which {@link NAME} accepts). */
export function pluginNames(name: string): PluginNames {
  const camel = name.replace(/-([a-z0-9])/g, (_, c: string) => c.toUpperCase())
  const snake = name.replaceAll('-', '_')
  return {
    name,
    snake,
    camel,
    pascal: camel[0]!.toUpperCase() + camel.slice(1),
    upper: snake.toUpperCase(),
  }
}

/**
 * `greeter` → `name` in each spelling the example uses, chosen by where the word stands: the
 * config area, SQL tables and health check names take the snake_case spelling, identifiers the
 * camelCase or PascalCase one, environment variables and error codes the upper-case one, and
 * everything else (plugin name, events, routes, taps, commands, headers, prose) the name as given.
 */
function rename(text: string, path: string, n: PluginNames, fwDir: string): string {
  const key = n.name.includes('-') ? `'${n.name}'` : n.name
  let out = text
    .replaceAll('"fw": "file:../fw"', `"fw": ${JSON.stringify(`file:${fwDir}`)}`)
    .replace(
      /"description": "[^"]*"/,
      `"description": ${JSON.stringify(`fw-plugin-${n.name}: an fw plugin`)}`,
    )
    .replaceAll('GREETER', n.upper)
    .replaceAll('Greeter', n.pascal)
    .replace(/greeter(?=[A-Z])/g, n.camel) // greeterErrors, greeterCheck
    .replace(/\bgreeter(?=_|\\?\.greeting\b|": ?\{|: \{)/g, n.snake) // config area, table
    .replace(/\bgreeter(?=\?\.(status|message)\b)/g, n.snake) // report.checks.greeter?.status
    .replace(/(?<=only: \[')greeter(?=')/g, n.snake) // run({ only: ['greeter'] })
    .replace(/\bgreeter(?=: [A-Z])/g, key) // PluginApis' entry
    // an identifier: `const greeter =`, `import { greeter }`, `register(greeter)`, `[[greeter]]`
    .replace(/(?<=\b(?:const|default) |\{ |\(|\[)greeter\b(?![-'".:])/g, n.camel)
  // A health check is named in snake_case.
  if (path.endsWith('health-check.ts')) out = out.replace(/\bgreeter\b/g, n.snake)
  return out.replace(/greeter/g, n.name)
}

function readme(n: PluginNames): string {
  return `# fw-plugin-${n.name}

An fw plugin, scaffolded by \`fw create:plugin ${n.name}\` from fw's plugin guide
(\`docs/writing-a-plugin.md\` in fw), which explains every file.

- \`GET /greet/{name}\` answers \`{ message, visits }\` and records a \`${n.name}.greeted\` event; the
  response carries \`x-greeted\`.
- Config key \`${n.snake}.greeting\` (string, default \`Hello\`; env \`${n.upper}_GREETING\`).
- Uses the database plugin (raw SQL) and the health plugin (check \`${n.snake}\`) when registered.
- \`fw ${n.name}:greet <name>\` prints a greeting.
- Error code \`FW_ERR_${n.upper}_PREFIX\`: at setup, the \`prefix\` option is not a plain
  path (lowercase segments such as \`hello\`).

## Develop

\`\`\`sh
npm install
npm test        # type-check, then the uvu suite
npm run build   # dist/ with declarations
\`\`\`

## Use in an app

\`\`\`ts
import ${n.camel} from 'fw-plugin-${n.name}'
kernel.register(${n.camel})
\`\`\`
`
}

/** `fw create:plugin <name>`: scaffolds a plugin package (plugin, command, health check, tests). */
export class CreatePluginCommand extends builtinCommand('create:plugin', {
  needsApp: false,
  outsideApp: true,
}) {
  static override usage = Command.Usage({
    category: 'Plugins',
    description: 'Scaffold a plugin package',
    details: `
      Writes a complete plugin package into \`fw-plugin-<name>\` (or \`--dir\`): package.json, tsconfigs, the plugin (a route, an event and a header from the request's log, a config slice, optional use of the database and health plugins), a CLI command, a health check, an error code registry, tests and a README. It is the package of fw's plugin guide, renamed. Then \`npm install && npm test\` in that folder.

      The name is npm-style: lowercase letters and digits, words joined by \`-\` (\`visits\`, \`hello-stats\`). It names the plugin, its events, routes, taps and commands; the config area and the health check take it with \`_\` (\`hello_stats\`), identifiers in camelCase (\`helloStats\`), environment variables and error codes in capitals (\`HELLO_STATS_GREETING\`, \`FW_ERR_HELLO_STATS_PREFIX\`). The folder must not exist or be empty.
    `,
    examples: [
      ['Scaffold fw-plugin-visits', '$0 create:plugin visits'],
      ['Scaffold fw-plugin-hello-stats (config area hello_stats)', '$0 create:plugin hello-stats'],
    ],
  })

  name = Option.String({ name: 'name' })
  dir = Option.String('--dir', { description: 'Where to write the package' })

  override async execute(): Promise<number> {
    const { stdout, stderr } = this.context
    if (!NAME.test(this.name)) {
      stderr.write(
        `'${this.name}' is not a usable plugin name: use lowercase letters and digits, words joined by - (e.g. visits, hello-stats; the config area is then hello_stats).\n`,
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
    const names = pluginNames(this.name)
    files.set('README.md', readme(names))
    for (const [path, content] of files) {
      const out = join(target, rename(path, path, names, root))
      mkdirSync(dirname(out), { recursive: true })
      writeFileSync(out, rename(content, path, names, root))
    }
    const where = relative(this.context.kernel.root, target) || '.'
    stdout.write(
      `Created fw-plugin-${this.name} in ${where} (${files.size} files).\nNext: cd ${where} && npm install && npm test\n`,
    )
    return 0
  }
}
