import { readFileSync } from 'node:fs'
import { isAbsolute, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

/** Why a build of the app failed, where, and the lines around it: for the console and the overlay. */
export interface LoadFailure {
  readonly message: string
  /** The file, relative to the app root, when the error points into the app. */
  readonly file?: string
  readonly line?: number
  readonly column?: number
  /** The lines around the failing one, numbered, with a caret under the column. */
  readonly frame?: string
}

interface Location {
  readonly path: string
  readonly line: number
  readonly column: number
}

/** esbuild's error (what tsx throws for a file it cannot compile) names the location itself. */
interface TransformErrorLike {
  readonly errors?: readonly {
    readonly location?: { file: string; line: number; column: number } | null
  }[]
}

/** The innermost cause: `AppLoadError` wraps what the app threw. */
function innermost(error: unknown): unknown {
  let current = error
  for (let depth = 0; depth < 5; depth++) {
    const cause = (current as { cause?: unknown } | null)?.cause
    if (cause === undefined || cause === null) break
    current = cause
  }
  return current
}

/** `file:///…/x.ts?fw-v=3:12:5` or `/…/x.ts:12:5`, in the app's folder (not in node_modules). */
const PLACE = /((?:file:\/\/)?\/[^\s:()'"]+?)(?:\?[^\s:()]*)?:(\d+)(?::(\d+))?/g

function locate(error: unknown, root: string): Location | undefined {
  const located = (error as TransformErrorLike).errors?.[0]?.location
  if (located) return { path: located.file, line: located.line, column: located.column + 1 }
  const text = `${(error as Error)?.message ?? ''}\n${(error as Error)?.stack ?? ''}`
  // esbuild counts columns from 0 (`Transform failed with 1 error:\n/…/x.ts:16:0: ERROR: …`).
  const fromZero = /^Transform failed/.test((error as Error)?.message ?? '') ? 1 : 0
  for (const match of text.matchAll(PLACE)) {
    const path = match[1]!.startsWith('file:') ? fileURLToPath(match[1]!) : match[1]!
    if (!path.startsWith(root) || path.includes('/node_modules/')) continue
    return { path, line: Number(match[2]), column: Number(match[3] ?? 0) + fromZero || 1 }
  }
  return undefined
}

function codeFrame(path: string, line: number, column: number): string | undefined {
  let lines: string[]
  try {
    lines = readFileSync(path, 'utf8').split('\n')
  } catch {
    return undefined
  }
  if (line < 1 || line > lines.length) return undefined
  const first = Math.max(1, line - 2)
  const last = Math.min(lines.length, line + 2)
  const width = String(last).length
  const out: string[] = []
  for (let n = first; n <= last; n++) {
    out.push(`${n === line ? '>' : ' '} ${String(n).padStart(width)} | ${lines[n - 1]}`)
    if (n === line) out.push(`  ${' '.repeat(width)} | ${' '.repeat(Math.max(0, column - 1))}^`)
  }
  return out.join('\n')
}

/** What went wrong in a build, located in the app's own files when the error says where. */
export function describeFailure(error: unknown, root: string): LoadFailure {
  const cause = innermost(error)
  const message =
    cause instanceof Error
      ? `${cause.name === 'Error' ? '' : `${cause.name}: `}${cause.message}`
      : String(cause)
  const place = locate(cause, root) ?? locate(error, root)
  if (place === undefined) return { message }
  const path = isAbsolute(place.path) ? place.path : `${root}/${place.path}`
  return {
    message,
    file: relative(root, path),
    line: place.line,
    column: place.column,
    frame: codeFrame(path, place.line, place.column),
  }
}

/** The failure as the console prints it: location, message, code frame. */
export function formatFailure(failure: LoadFailure): string {
  const where =
    failure.file === undefined ? '' : `${failure.file}:${failure.line}:${failure.column}: `
  return `${where}${failure.message}${failure.frame === undefined ? '' : `\n${failure.frame}`}\n`
}
