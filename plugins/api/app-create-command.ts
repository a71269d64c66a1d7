import { randomBytes } from 'node:crypto'
import { Command, Option } from 'clipanion'
import type { CommandContext } from 'fw'
import { hashPassword } from 'fw/plugins/auth/credentials'
import type { StatementError } from 'fw/plugins/database'
import { hashApiKey } from './api-key.js'

/**
 * The database's unique-key refusal (SQLSTATE 23505), told by the shape of the database plugin's
 * `StatementError`: the plugin is optional to api, so its classes are not imported here.
 */
function isUniqueViolation(error: unknown): boolean {
  const failure = (error as Partial<StatementError> | null)?.failure
  return error instanceof Error && failure?.sqlState === '23505'
}

/** A random credential: 32 bytes (256 bits) as base64url, behind a readable prefix. */
export function randomCredential(prefix: string): string {
  return `${prefix}_${randomBytes(32).toString('base64url')}`
}

/**
 * `fw app:create <name>`: creates an application in `applications` and prints its API key and
 * secret, once. Only their hashes are stored (SHA-256 for the key, scrypt for the secret).
 */
export class AppCreateCommand extends Command<CommandContext> {
  static override paths = [['app:create']]
  static override usage = Command.Usage({
    category: 'API',
    description: 'Create an API application and print its key and secret once',
    details: `
      Inserts an active application named <name> into the \`applications\` table with a random API
      key and secret (256 bits each). Both are printed once and stored only as hashes: keep them
      now, they cannot be shown again. A name that already exists exits 1.
    `,
    examples: [['Create the application `shop`', '$0 app:create shop']],
  })

  name = Option.String({ name: 'name' })

  async execute(): Promise<number> {
    const { stdout, stderr, kernel } = this.context
    const name = this.name.trim()
    if (name === '' || name.length > 100) {
      stderr.write('The application name must be 1 to 100 characters.\n')
      return 1
    }
    const db = kernel.plugin('database')
    await db.ready()
    const existing = await db.runStatement({
      sql: 'select id from applications where name = ? limit 1',
      bindings: [name],
    })
    const duplicate = `An application named '${name}' already exists. Pick another name.\n`
    if (existing.length > 0) {
      stderr.write(duplicate)
      return 1
    }
    const key = randomCredential('fwk')
    const secret = randomCredential('fws')
    try {
      await db.runStatement({
        sql: "insert into applications (name, api_key_hash, secret_hash, status) values (?, ?, ?, 'active')",
        bindings: [name, hashApiKey(key), await hashPassword(secret)],
      })
    } catch (error) {
      // Created by someone else between the check and the insert.
      if (isUniqueViolation(error)) {
        stderr.write(duplicate)
        return 1
      }
      throw error
    }
    stdout.write(
      `Created application '${name}'.\n` +
        `API key: ${key}\n` +
        `Secret:  ${secret}\n` +
        'Store both now: they are shown only once and kept only as hashes.\n',
    )
    return 0
  }
}
