// fw's optional peer dependencies: packages that one plugin feature needs and not every app uses
// (package.json `peerDependenciesMeta`), loaded where that feature is first used, so an app that
// does not use it neither installs nor loads them. A missing one is reported as
// FW_ERR_PACKAGE_MISSING naming the package to install (test/kernel/optional-package.test.ts makes
// them absent in a child process).
import { createRequire } from 'node:module'
import { kernelErrors } from './error-codes.js'
import type { FwError } from './errors.js'

const require = createRequire(import.meta.url)

/** The package a specifier names: `@scope/name` or `name`, without a subpath. */
function packageOf(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier)
}

/**
 * True when `error` says the package itself is not installed: not a failure inside it, nor a
 * module that it imports being missing (that one is its install's problem, reported as it is).
 */
function isAbsent(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false
  const first = String(message).split('\n')[0] ?? ''
  return first.includes(`'${name}'`) || first.includes(`'${name}/`)
}

/** The version range fw declares for `name`, for the install line; undefined when unknown. */
function rangeOf(name: string): string | undefined {
  try {
    const pkg = require('fw/package.json') as { peerDependencies?: Record<string, string> }
    return pkg.peerDependencies?.[name]
  } catch {
    return undefined
  }
}

function absent(specifier: string, feature: string, cause: unknown): FwError {
  const name = packageOf(specifier)
  return kernelErrors.error(
    'FW_ERR_PACKAGE_MISSING',
    { name, feature, range: rangeOf(name) },
    {
      cause,
    },
  )
}

/**
 * Imports the optional package `specifier` for `feature` (a phrase naming what needs it, e.g.
 * `"the telemetry plugin's metrics"`); throws FW_ERR_PACKAGE_MISSING when it is not installed.
 *
 * @example
 * const client = await importOptional<typeof import('prom-client')>('prom-client', 'the metrics')
 */
export async function importOptional<T>(specifier: string, feature: string): Promise<T> {
  try {
    return (await import(specifier)) as T
  } catch (error) {
    throw isAbsent(error, packageOf(specifier)) ? absent(specifier, feature, error) : error
  }
}

/**
 * {@link importOptional} for a code path that cannot wait: `require()`s the package (a CommonJS
 * one, or ESM that Node can require).
 */
export function requireOptional<T>(specifier: string, feature: string): T {
  try {
    return require(specifier) as T
  } catch (error) {
    throw isAbsent(error, packageOf(specifier)) ? absent(specifier, feature, error) : error
  }
}
