import { Command, Option } from 'clipanion'
import type { CommandContext } from 'fw'
import { DEFAULT_TTL, grantSecret, issueGrantToken, MAX_TTL, MIN_TTL, parseTtl } from './grant.js'

/** `fw debug:token [--ttl=<v>] [--url=<base>]`: prints a link that grants the debug toolbar. */
export class DebugTokenCommand extends Command<CommandContext> {
  static override paths = [['debug:token']]
  static override usage = Command.Usage({
    category: 'Debug',
    description: 'Print a link that opens the debug toolbar for one browser',
    details: `
      Signs a grant with \`debug_token_secret\` (or the application key) and prints a link carrying
      \`?_debug=<token>\` and the time it expires. Opening the link sets the \`fw_debug\` cookie;
      \`?_debug=off\`, the expiry, or a new key end the grant. \`--ttl\` takes seconds (\`90\`,
      \`90s\`) or \`30m\`, \`2h\`, \`1d\`; the lifetime is kept between 60 seconds and 12 hours
      (default 1 hour). The link's query string, and so the token, appears in access logs.
    `,
    examples: [
      ['A one-hour link', '$0 debug:token'],
      [
        'A 30-minute link to the public address',
        '$0 debug:token --ttl=30m --url=https://shop.example',
      ],
    ],
  })

  ttl = Option.String('--ttl', { description: 'Lifetime: 90, 90s, 30m, 2h or 1d (at most 12h)' })
  url = Option.String('--url', { description: "The link's base address (default: the server's)" })

  async execute(): Promise<number> {
    const { kernel, stdout, stderr } = this.context
    const secret = grantSecret(kernel.config)
    if (secret === undefined) {
      stderr.write(
        'No application key: debug grants cannot be signed. Set FW_APP_KEY (fw key:generate) or debug_token_secret.\n',
      )
      return 1
    }
    let asked = DEFAULT_TTL
    if (this.ttl !== undefined) {
      const parsed = parseTtl(this.ttl)
      if (parsed === undefined) {
        stderr.write(
          `--ttl=${this.ttl} is not a lifetime. Give seconds (90 or 90s) or a number followed by m, h or d (30m, 2h, 1d).\n`,
        )
        return 1
      }
      asked = parsed
    }
    const host = kernel.config.http.host
    const base =
      this.url ?? `http://${host.includes(':') ? `[${host}]` : host}:${kernel.config.http.port}/`
    let link: URL
    try {
      link = new URL(base)
      if (link.protocol !== 'http:' && link.protocol !== 'https:') throw new Error('not http')
    } catch {
      stderr.write(
        `--url=${base} is not an http(s) address. Give one like https://example.test/.\n`,
      )
      return 1
    }
    const issued = issueGrantToken(secret, asked)
    link.searchParams.set('_debug', issued.token)
    const expires = new Date(issued.expires * 1000).toISOString()
    if (asked > MAX_TTL) stdout.write(`The lifetime is capped to 12h (asked for ${this.ttl}).\n`)
    else if (asked < MIN_TTL)
      stdout.write(`The lifetime is raised to the minimum of 60s (asked for ${this.ttl}).\n`)
    stdout.write(`${link.href}\n`)
    stdout.write(`Expires: ${expires} (in ${formatTtl(issued.ttl)})\n`)
    return 0
  }
}

function formatTtl(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`
  if (seconds % 60 === 0) return `${seconds / 60}m`
  return `${seconds}s`
}
