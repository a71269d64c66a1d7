import type { ClientRequest } from 'node:http'

/** Streams `bytes` bytes of `chunk`, repeated, then the closing `boundary`, and ends `req`. */
export declare function writeFilePart(
  req: ClientRequest,
  bytes: number,
  chunk: Buffer,
  boundary: string,
): void
