import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { Command, Option } from 'clipanion'
import { readEnvValue, setEnvLine } from '../env-file.js'
import { builtinCommand } from '../builtin-command.js'

/** A fresh application key: 32 random bytes, base64url, prefixed `base64:`. */
export function generateAppKey(): string {
  return `base64:${randomBytes(32).toString('base64url')}`
}

/** What replacing the key costs, said wherever a key may be replaced. */
const INVALIDATES =
  'every session, token, sign-in form and debug grant signed with the current key stops being valid (everyone is signed out)'

/**
 * `fw key:generate`: writes a new `FW_APP_KEY` into the app's `.env`, or prints one with `--show`.
 * A key already in `.env` is kept unless `--force`: run on each deploy, it would sign everyone out
 * (test/cli/key-generate.test.ts "refuses to replace").
 */
export class KeyGenerateCommand extends builtinCommand('key:generate', { bootsApp: false }) {
  static override usage = Command.Usage({
    category: 'Security',
    description: 'Generate the application key',
    details: `
      Generates a key (32 random bytes, base64url, prefixed \`base64:\`) and writes it as \`FW_APP_KEY=…\` into the \`.env\` file of the app root, creating the file or adding the line. The key itself is not printed.

      When \`.env\` already has a key, it is kept and the command exits 1: replacing it means ${INVALIDATES}. \`--force\` replaces it.

      With \`--show\`, prints a new key and writes nothing. An existing key is never printed.
    `,
    examples: [
      ['Write a new key to .env', '$0 key:generate'],
      ['Replace the key in .env, signing everyone out', '$0 key:generate --force'],
      ['Print a key for a secret store', '$0 key:generate --show'],
    ],
  })

  show = Option.Boolean('--show', false, { description: 'Print a new key instead of writing it' })
  force = Option.Boolean('--force', false, {
    description: 'Replace the key .env already has (signs everyone out)',
  })

  override async execute(): Promise<number> {
    const { kernel, stdout, stderr, env } = this.context
    const key = generateAppKey()
    if (this.show) {
      stdout.write(`${key}\n`)
      return 0
    }
    const file = join(kernel.root, '.env')
    const existing = readEnvValue(file, 'FW_APP_KEY')
    const hadKey = existing !== undefined && existing.trim() !== ''
    if (hadKey && !this.force) {
      stderr.write(
        `fw: ${file} already has an FW_APP_KEY: kept. 'fw key:generate --force' replaces it, and then ${INVALIDATES}.\n`,
      )
      return 1
    }
    setEnvLine(file, 'FW_APP_KEY', key)
    stdout.write(
      hadKey
        ? `Replaced FW_APP_KEY in ${file}. Sessions, tokens, sign-in forms and debug grants signed with the old key are no longer valid.\n`
        : `Wrote FW_APP_KEY to ${file}.\n`,
    )
    if (env.FW_APP_KEY !== undefined && env.FW_APP_KEY !== '' && !hadKey) {
      stderr.write(
        'fw: FW_APP_KEY is also set in the environment, which takes precedence over .env.\n',
      )
    }
    return 0
  }
}
