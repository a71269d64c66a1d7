// A baseline server child run the way fw runs in the same benchmark: through tsx when fw runs from
// its sources, or as plain JavaScript when fw runs built (bundled here with esbuild into
// node_modules/.cache/fw-bench/, where `pg` and `polka` resolve), so that neither side carries
// tsx's loader thread (~35 MB of RSS, some start-up) that the other does not.
import { build } from 'esbuild'
import { basename, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { spawnServer, startServer, type ServerChild } from './child-server.js'
import { root } from './playground-child.js'

/** Starts `bench/lib/<file>` (a server calling `announce()`), compiled when `compiled`. */
export async function startBaseline(
  name: string,
  file: string,
  compiled: boolean,
  env: Readonly<Record<string, string>> = {},
): Promise<ServerChild> {
  if (!compiled) return startServer(name, file, [], 20_000, env)
  const source = fileURLToPath(new URL(file, import.meta.url))
  const outfile = join(
    root,
    'node_modules',
    '.cache',
    'fw-bench',
    basename(source).replace(/\.ts$/, '.mjs'),
  )
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  })
  return spawnServer(name, [outfile], 20_000, env)
}
