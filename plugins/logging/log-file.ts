import { isAbsolute, join, resolve } from 'node:path'
import type pino from 'pino'
import { loadPino } from './pino-logger.js'

/** Where lines go, and how to close it on shutdown. */
export interface LogSink {
  readonly stream: pino.DestinationStream
  /** The log file, or `undefined` when lines go to a stream the app gave. */
  readonly file: string | undefined
  /** Writes what is pending and closes the file (a no-op for a given stream). */
  close(): Promise<void>
}

/** `<root>/var/log/<app name>.log`, the name reduced to characters safe in a file name. */
export function defaultLogFile(root: string, appName: string): string {
  const safe = appName.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[.-]+/, '') || 'app'
  return join(root, 'var', 'log', `${safe}.log`)
}

/** `file` (the plugin's `file` option) as an absolute path: relative to the app root. */
export function logFilePath(root: string, file: string): string {
  return isAbsolute(file) ? file : resolve(root, file)
}

/**
 * Opens `path` for appending, creating its directory, without blocking the request that logs:
 * pino's destination (sonic-boom) writes asynchronously and, like pino, flushes on process exit.
 * `onError` hears about a file that cannot be opened or written.
 */
export function openLogFile(path: string, onError: (error: Error, file: string) => void): LogSink {
  // Required on the first line written (the plugin opens the file then), not when fw loads.
  const { destination } = loadPino()
  const boom = destination({ dest: path, sync: false, mkdir: true, append: true })
  boom.on('error', (error: Error) => onError(error, path))
  let closing: Promise<void> | undefined
  return {
    stream: boom,
    file: path,
    close() {
      closing ??= new Promise<void>((done) => {
        boom.once('close', () => done())
        try {
          boom.end() // waits for the file to open and in-flight writes to land, then closes
        } catch {
          done() // already destroyed after an error: nothing left to write
        }
      })
      return closing
    },
  }
}

/** A stream the app gave (tests, stdout): written to, never closed by the plugin. */
export function givenStream(stream: pino.DestinationStream): LogSink {
  return { stream, file: undefined, close: async () => undefined }
}
