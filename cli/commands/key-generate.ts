import { randomBytes } from 'node:crypto'
import { join } from 'node:path'
import { Command, Option } from 'clipanion'
import { setEnvLine } from '../env-file.js'
import { builtinCommand } from '../builtin-command.js'

/** A fresh application key: 32 random bytes, base64url, prefixed `base64:`. */
export function generateAppKey(): string {
  return `base64:${randomBytes(32).toString('base64url')}`
}

/** `fw key:generate`: writes a new `FW_APP_KEY` into the app's `.env`, or prints one with `--show`. */
export class KeyGenerateCommand extends builtinCommand('key:generate', { bootsApp: false }) {
  static override usage = Command.Usage({
    category: 'Security',
    description: 'Generate the application key',
    details: `
      Generates a key (32 random bytes, base64url, prefixed \`base64:\`) and writes it as \`FW_APP_KEY=…\` into the \`.env\` file of the app root, replacing the line that is there or creating the file. The key itself is not printed.

      Replacing a key invalidates every token and debug grant signed with the old one.

      With \`--show\`, prints a new key and writes nothing. An existing key is never printed.
    `,
    examples: [
      ['Write a new key to .env', '$0 key:generate'],
      ['Print a key for a secret store', '$0 key:generate --show'],
    ],
  })

  show = Option.Boolean('--show', false, { description: 'Print a new key instead of writing it' })

  override async execute(): Promise<number> {
    const { kernel, stdout, stderr, env } = this.context
    const key = generateAppKey()
    if (this.show) {
      stdout.write(`${key}\n`)
      return 0
    }
    const file = join(kernel.root, '.env')
    const replaced = setEnvLine(file, 'FW_APP_KEY', key)
    stdout.write(
      replaced
        ? `Replaced FW_APP_KEY in ${file}. Tokens and debug grants signed with the old key are no longer valid.\n`
        : `Wrote FW_APP_KEY to ${file}.\n`,
    )
    if (env.FW_APP_KEY !== undefined && env.FW_APP_KEY !== '' && !replaced) {
      stderr.write(
        'fw: FW_APP_KEY is also set in the environment, which takes precedence over .env.\n',
      )
    }
    return 0
  }
}
