// The file part of a generated multipart upload, streamed: what bench/uploads.ts sends to each
// server and test/plugins/uploads/upload-client.mjs sends from a process of its own. Plain
// JavaScript, so that client runs under node without tsx.

/**
 * Writes `bytes` bytes of `chunk`, repeated, to `req` (the file part's content, its headers already
 * written), waiting for `drain` whenever the socket's buffer is full, then the closing `boundary`,
 * and ends the request.
 */
export function writeFilePart(req, bytes, chunk, boundary) {
  let left = bytes
  const pump = () => {
    while (left > 0) {
      const n = Math.min(left, chunk.length)
      left -= n
      if (!req.write(n === chunk.length ? chunk : chunk.subarray(0, n)))
        return void req.once('drain', pump)
    }
    req.end(`\r\n--${boundary}--\r\n`)
  }
  pump()
}
