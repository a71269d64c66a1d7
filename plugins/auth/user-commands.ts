import { Option, pluginCommand, UsageError, wholeNumberOption, writeItems } from 'fw/cli'
import type { CommandContext } from 'fw'
import { requireMigrated, uniqueViolation } from 'fw/plugins/database'
import { readPassword } from './password-input.js'

/**
 * The fewest characters a password set from the command line has: the auth plugin's own rule is
 * only "not empty" (`createUser()`, `setPassword()`), which takes a one-character password
 * (test/plugins/auth/user-commands.test.ts "refuses a password under 8 characters").
 */
const MIN_PASSWORD_LENGTH = 8

// One line: clipanion joins a usage text's lines, and an indented line keeps its indent there.
const PASSWORD_INPUT = `The password is read from stdin with \`--password-stdin\` (one trailing line break dropped), else asked twice on the terminal without echo; never from the command line. One of fewer than ${MIN_PASSWORD_LENGTH} characters is refused.`

/** The password as the command was told to read it; refuses one under the minimum length. */
async function passwordOf(command: { context: CommandContext; stdin: boolean }): Promise<string> {
  const password = await readPassword(command.context, command.stdin)
  if (password === '') throw new UsageError('the password is empty; nothing was changed.')
  const length = [...password].length
  if (length < MIN_PASSWORD_LENGTH)
    throw new UsageError(
      `the password has ${length} character${length === 1 ? '' : 's'}: use at least ${MIN_PASSWORD_LENGTH}; nothing was changed.`,
    )
  return password
}

/** The auth plugin, once its tables are sure to be there (`requireMigrated`). */
async function openAccounts(context: CommandContext) {
  await requireMigrated(context)
  return context.kernel.plugin('auth')
}

/** `fw user:create <username> [--email] [--usertype N] [--password-stdin]`. */
export class UserCreateCommand extends pluginCommand('user:create', {
  category: 'Accounts',
  description: 'Create a user of the auth plugin',
  details: `Creates a user who can sign in at once (token login, web sign-in). ${PASSWORD_INPUT} A username that is taken (whatever its case) is refused.`,
  examples: [
    ['Create ann, asked for her password', '$0 user:create ann --email ann@example.test'],
    [
      'Create an admin from a secret store',
      'pass show ops | $0 user:create ops --usertype 2 --password-stdin',
    ],
  ],
}) {
  username = Option.String({ name: 'username' })
  email = Option.String('--email', '', { description: 'The e-mail address (default: none)' })
  usertype = Option.String('--usertype', '1', {
    description: 'The user type, a whole number (default 1)',
  })
  stdin = Option.Boolean('--password-stdin', false, { description: 'Read the password from stdin' })

  async execute(): Promise<number> {
    const usertype = wholeNumberOption('--usertype', this.usertype, 0, 2 ** 31 - 1)
    const username = this.username.trim()
    if (username === '' || username.length > 100)
      throw new UsageError('the username must be 1 to 100 characters.')
    if (this.email !== '' && !/^[^\s@]+@[^\s@]+$/.test(this.email))
      throw new UsageError(`'${this.email}' is not an e-mail address.`)
    const auth = await openAccounts(this.context)
    const taken = new UsageError(`a user named '${username}' already exists.`)
    if ((await auth.findUser(username)) !== undefined) throw taken
    const password = await passwordOf(this)
    const user = await auth
      .createUser({ username, password, email: this.email, usertype })
      .catch((error: unknown) => {
        throw uniqueViolation(error) === undefined ? error : taken
      })
    this.context.stdout.write(
      `Created user ${user.username} (id ${user.id}, usertype ${user.usertype}).\n`,
    )
    return 0
  }
}

/** `fw user:password <username> [--password-stdin]`. */
export class UserPasswordCommand extends pluginCommand('user:password', {
  category: 'Accounts',
  description: "Set a user's password and sign them out everywhere",
  details: `Replaces the user's password, then revokes every access token, refresh token and web session the user holds (running instances on PostgreSQL hear of it at once). ${PASSWORD_INPUT}`,
  examples: [['Reset ann', '$0 user:password ann']],
}) {
  username = Option.String({ name: 'username' })
  stdin = Option.Boolean('--password-stdin', false, { description: 'Read the password from stdin' })

  async execute(): Promise<number> {
    const auth = await openAccounts(this.context)
    const user = await auth.findUser(this.username)
    if (user === undefined) throw new UsageError(`no user named '${this.username.trim()}'.`)
    const changed = await auth.setPassword(user.username, await passwordOf(this))
    if (changed === undefined) throw new UsageError(`no user named '${this.username.trim()}'.`)
    this.context.stdout.write(
      `Changed the password of ${user.username}; revoked ${changed.revoked} token(s) and session(s).\n`,
    )
    return 0
  }
}

/** `fw user:list [--json]`. */
export class UserListCommand extends pluginCommand('user:list', {
  category: 'Accounts',
  description: 'List the users of the auth plugin',
  details:
    'Prints id, username, e-mail, usertype, whether a second factor is set, and when each was created; never a password hash.',
  examples: [
    ['List the users', '$0 user:list'],
    ['As JSON', '$0 user:list --json'],
  ],
}) {
  json = Option.Boolean('--json', false, { description: 'Print the users as JSON' })

  async execute(): Promise<number> {
    const users = await (await openAccounts(this.context)).listUsers()
    writeItems(
      this.context.stdout,
      this.json,
      users,
      ['Id', 'Username', 'Email', 'Usertype', '2FA', 'Created'],
      (u) => [
        String(u.id),
        u.username,
        u.email,
        String(u.usertype),
        u.twoFactor ? 'yes' : 'no',
        u.createdAt,
      ],
    )
    return 0
  }
}

/** The auth plugin's account commands. */
export const userCommands = [UserCreateCommand, UserPasswordCommand, UserListCommand] as const
