import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs'
import * as util from 'node:util'

const KEY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/**
 * Loads a `.env` file into `env` without overriding a variable that is already set (the shell
 * wins over the file, as `process.loadEnvFile` does). Returns whether the file existed.
 */
export function loadEnvFile(file: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (!existsSync(file)) return false
  for (const [key, value] of Object.entries(parseEnvText(readFileSync(file, 'utf8')))) {
    if (env[key] === undefined) env[key] = value
  }
  return true
}

/** The value a `.env` file assigns to `name` (as {@link loadEnvFile} reads it), if any. */
export function readEnvValue(file: string, name: string): string | undefined {
  if (!existsSync(file)) return undefined
  return parseEnvText(readFileSync(file, 'utf8'))[name]
}

/**
 * Parses `.env` text with Node's own parser (`util.parseEnv`, the one behind `process.loadEnvFile`,
 * from 20.12), or plain `KEY=VALUE` lines on 20.11, which has neither. A namespace import, because
 * a named import of a missing builtin export fails to link.
 */
function parseEnvText(text: string): Record<string, string> {
  if (typeof util.parseEnv === 'function') return util.parseEnv(text) as Record<string, string>
  const out: Record<string, string> = {}
  for (const line of text.split(/\r?\n/)) {
    const m = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*?)\s*$/.exec(line)
    if (!m) continue
    let value = m[2]!
    const quote = value[0]
    if ((quote === '"' || quote === "'") && value.endsWith(quote) && value.length >= 2)
      value = value.slice(1, -1)
    else value = value.replace(/\s+#.*$/, '')
    out[m[1]!] = value
  }
  return out
}

/**
 * Sets `name=value` in a `.env` file: replaces the first line assigning `name` (dropping any later
 * duplicates, which would otherwise win), or appends one; creates the file (mode 0600) if needed.
 * Returns whether an assignment was already there.
 */
export function setEnvLine(file: string, name: string, value: string): boolean {
  if (!KEY_NAME.test(name)) throw new Error(`'${name}' is not a valid environment variable name.`)
  const assigns = new RegExp(`^\\s*(?:export\\s+)?${name}\\s*=`)
  const line = `${name}=${value}`
  if (!existsSync(file)) {
    writeFileSync(file, `${line}\n`, { mode: 0o600 })
    chmodSync(file, 0o600)
    return false
  }
  const text = readFileSync(file, 'utf8')
  const eol = text.includes('\r\n') ? '\r\n' : '\n'
  const lines = text.split(/\r?\n/)
  if (lines.at(-1) === '') lines.pop()
  let replaced = false
  const out: string[] = []
  for (const current of lines) {
    if (!assigns.test(current)) out.push(current)
    else if (!replaced) {
      out.push(line)
      replaced = true
    }
  }
  if (!replaced) out.push(line)
  writeFileSync(file, `${out.join(eol)}${eol}`)
  return replaced
}
