import { existsSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join, relative, resolve, sep } from 'node:path'
import { Command, Option, UsageError } from 'clipanion'
import { builtinCommand } from '../builtin-command.js'
import { writeFiles, type NewFile } from './scaffold.js'

/** fw's package.json, as this running fw has it: its root, version and dependency ranges. */
interface FwPackage {
  readonly root: string
  readonly version: string
  readonly ranges: Readonly<Record<string, string>>
  readonly node: string | undefined
}

function fwPackage(): FwPackage {
  const file = createRequire(import.meta.url).resolve('fw/package.json')
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as {
    version: string
    engines?: { node?: string }
    dependencies?: Record<string, string>
    devDependencies?: Record<string, string>
    peerDependencies?: Record<string, string>
  }
  return {
    root: dirname(realpathSync(file)),
    version: pkg.version,
    ranges: { ...pkg.peerDependencies, ...pkg.devDependencies, ...pkg.dependencies },
    node: pkg.engines?.node,
  }
}

/**
 * How the new app depends on fw: as the running fw was installed. A folder outside any
 * `node_modules` (a checkout, `npm link`) is `file:<folder>`; an install from a tarball or a folder
 * is what npm recorded it `resolved` from (`file:<absolute path>`); anything else the running
 * version (`^0.1.0`).
 */
export function installedSpec(fw: FwPackage): string {
  const parts = fw.root.split(sep)
  const at = parts.lastIndexOf('node_modules')
  if (at === -1) return `file:${fw.root}`
  const installRoot = parts.slice(0, at).join(sep) || sep
  const key = parts.slice(at).join('/')
  for (const lock of [
    join(installRoot, 'node_modules', '.package-lock.json'),
    join(installRoot, 'package-lock.json'),
  ]) {
    try {
      const entry = (
        JSON.parse(readFileSync(lock, 'utf8')) as {
          packages?: Record<string, { resolved?: string }>
        }
      ).packages?.[key]
      const resolved = entry?.resolved
      if (resolved?.startsWith('file:'))
        return `file:${resolve(installRoot, resolved.slice('file:'.length))}`
      if (resolved !== undefined) break
    } catch {
      // No lockfile there: try the next, else the version.
    }
  }
  return `^${fw.version}`
}

/** The npm package name of a folder: lowercase, URL-safe, from its base name. */
export function packageName(folder: string): string {
  return basename(folder)
    .toLowerCase()
    .replace(/[^a-z0-9._~-]+/g, '-')
    .replace(/^[._-]+|[-]+$/g, '')
}

/**
 * `path` as a shell takes it in `cd <path>`: as is when it holds only characters no shell treats
 * specially, else quoted (POSIX single quotes; double quotes on Windows, whose cmd.exe has no
 * single quotes). test/cli/new.test.ts "prints a cd line a shell accepts".
 */
export function shellPath(path: string, platform: NodeJS.Platform = process.platform): string {
  const safe = path.startsWith('-') ? `.${sep}${path}` : path
  if (/^[\w./:@%+=,\\-]+$/.test(safe) && (platform === 'win32' || !safe.includes('\\'))) return safe
  if (platform === 'win32') return `"${safe}"`
  return `'${safe.replaceAll("'", "'\\''")}'`
}

/** The template's files (`templates/app` in fw's package), `_gitignore` named `.gitignore`. */
function templateFiles(dir: string, name: string): NewFile[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .filter((path) => statSync(join(dir, path)).isFile())
    .sort()
    .map((path) => ({
      path: path.replace(/(^|\/)_(gitignore|gitkeep|env\.example)$/, '$1.$2'),
      content: readFileSync(join(dir, path), 'utf8').replaceAll('__APP_NAME__', name),
    }))
}

function packageJson(name: string, fwSpec: string, fw: FwPackage): string {
  const dev = Object.fromEntries(
    ['@types/node', 'tsx', 'typescript'].map((d) => [d, fw.ranges[d] ?? 'latest']),
  )
  const pkg = {
    name,
    version: '0.1.0',
    private: true,
    type: 'module',
    ...(fw.node === undefined ? {} : { engines: { node: fw.node } }),
    fw: { app: './app.ts' },
    scripts: {
      dev: 'fw dev',
      start: 'fw serve',
      // From an empty dist/: a deleted controller or migration must not live on there (nor under
      // `npm start` and `fw route:list`); rmSync in node, so it runs in any shell and package
      // manager (test/cli/new-build.test.ts).
      build: `node -e "require('node:fs').rmSync('dist', { recursive: true, force: true })" && tsc -p tsconfig.build.json`,
      test: 'node --import tsx --test test/*.test.ts',
      migrate: 'fw migrate',
    },
    // The app registers the logging plugin, whose pino is an optional peer dependency of fw.
    dependencies: { fw: fwSpec, pino: fw.ranges.pino ?? 'latest' },
    devDependencies: dev,
  }
  return `${JSON.stringify(pkg, null, 2)}\n`
}

/** `fw new <dir>`: writes a complete app (fw's plugins, a page, an API route, tests) into `dir`. */
export class NewCommand extends builtinCommand('new', { needsApp: false, outsideApp: true }) {
  static override usage = Command.Usage({
    category: 'Apps',
    description: 'Create an app in a new folder',
    details: `
      Writes an app into \`<dir>\` (which must not exist, or be empty): package.json (scripts \`dev\`, \`start\`, \`build\`, \`test\`, \`migrate\`; fw as the running fw was installed, or \`--fw\`), the app module \`app.ts\`, \`controllers/\` (a home page and an API route), \`views/\` (a layout, the home and sign-in pages), \`entities/\`, \`migrations/\`, \`plugins/\`, \`public/\`, \`test/\`, \`.env.example\`, \`.gitignore\` and a README.

      Then \`npm install\`, \`npm test\` and \`npm run dev\` in it work with nothing else set: the database is embedded (PGlite, in \`var/db\`) and development signs with a development key. See docs/getting-started.md.
    `,
    examples: [
      ['Create the app "bookmarks"', '$0 new bookmarks'],
      ['Depend on fw from a tarball', '$0 new bookmarks --fw file:../fw-0.1.0.tgz'],
    ],
  })

  dir = Option.String({ name: 'dir' })
  fw = Option.String('--fw', {
    description: "fw's dependency spec in package.json (default: as this fw was installed)",
  })

  override async execute(): Promise<number> {
    const { stdout, stderr } = this.context
    const target = resolve(this.context.kernel.root, this.dir)
    const name = packageName(target)
    if (name === '')
      throw new UsageError(
        `'${this.dir}' gives no package name: name the folder with letters or digits (e.g. bookmarks).`,
      )
    if (existsSync(target) && readdirSync(target).length > 0) {
      stderr.write(`${target} exists and is not empty. Pick another folder, or empty it.\n`)
      return 1
    }
    if (this.fw !== undefined && this.fw.trim() === '')
      throw new UsageError('--fw must not be empty (e.g. --fw=^0.1.0 or --fw=file:../fw.tgz).')
    const fw = fwPackage()
    const files = [
      { path: 'package.json', content: packageJson(name, this.fw ?? installedSpec(fw), fw) },
      ...templateFiles(join(fw.root, 'templates', 'app'), name),
    ]
    const code = writeFiles(target, files, { force: false, stdout, stderr })
    if (code !== 0) return code
    // Relative to where fw was run (the CLI's kernel root is its cwd when no app is loaded).
    const where = relative(this.context.kernel.root, target) || '.'
    stdout.write(
      `\nCreated ${name} in ${where} (${files.length} files). Next:\n  cd ${shellPath(where)}\n  npm install\n  npm run dev     # http://127.0.0.1:3000\n  npm test\n`,
    )
    return 0
  }
}
