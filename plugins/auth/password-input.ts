// How `fw user:create` and `fw user:password` get a password: never from the command line (it
// would stay in the shell history and in every process listing).
import { createInterface } from 'node:readline'
import { Writable, type Readable } from 'node:stream'
import { UsageError } from 'clipanion'

/** The streams a command reads a password through. */
export interface PasswordStreams {
  readonly stdin: Readable & { isTTY?: boolean }
  readonly stderr: Writable
}

/**
 * The password: with `fromStdin`, everything stdin holds, without one trailing line break (`echo
 * … |`, a file, a secret store's output); else asked twice on the terminal, without echo. Fails
 * with a usage error when stdin is no terminal and `fromStdin` is not set, when the two answers
 * differ, or when the prompt is interrupted.
 */
export async function readPassword(streams: PasswordStreams, fromStdin: boolean): Promise<string> {
  if (fromStdin) {
    let text = ''
    for await (const chunk of streams.stdin) text += String(chunk)
    return text.replace(/\r?\n$/, '')
  }
  if (streams.stdin.isTTY !== true)
    throw new UsageError(
      'no terminal to ask for the password on: pipe it in with --password-stdin (it is never taken from the command line).',
    )
  const password = await ask(streams, 'Password: ')
  if ((await ask(streams, 'Password again: ')) !== password)
    throw new UsageError('the two passwords differ; nothing was changed.')
  return password
}

/** One answer read from the terminal with echo off (what is typed goes to a muted output). */
function ask({ stdin, stderr }: PasswordStreams, question: string): Promise<string> {
  const muted = new Writable({ write: (_chunk, _encoding, done) => done() })
  const rl = createInterface({ input: stdin, output: muted, terminal: true })
  stderr.write(question)
  return new Promise<string>((resolve, reject) => {
    rl.on('SIGINT', () => {
      rl.close()
      reject(new UsageError('interrupted; nothing was changed.'))
    })
    rl.question('', (answer) => {
      rl.close()
      resolve(answer)
    })
  }).finally(() => stderr.write('\n'))
}
