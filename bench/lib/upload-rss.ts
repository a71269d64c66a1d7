// The peak RSS of a benchmark's upload server: sampled every 20 ms, read and reset over HTTP
// (`GET /rss`), so the parent can tell how far memory rose during one upload.
let peak = 0
setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20).unref()

/** `{ rss, peak }` in bytes, the peak since the last call; the next peak starts from now. */
export function readRss(): { rss: number; peak: number } {
  const rss = process.memoryUsage().rss
  const answer = { rss, peak: Math.max(peak, rss) }
  peak = rss
  return answer
}
