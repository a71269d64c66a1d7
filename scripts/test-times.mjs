// Preloaded into a uvu process when FW_TEST_TIMES names a file: records how long each test file's
// suites took (wall ms, setup and teardown included) and the process's RSS after them, and appends
// one `ms<TAB>rss MB<TAB>file` line per file there when the process exits. uvu keeps its queue in `globalThis.UVU_QUEUE`, one group per file
// whose first entry is the file's name, and walks it with a for-of; the queue made here times that
// walk without changing what it yields.
import { appendFileSync } from 'node:fs'
import { performance } from 'node:perf_hooks'
import process from 'node:process'

const target = process.env.FW_TEST_TIMES
if (target) {
  const times = []
  class TimedQueue extends Array {
    *[Symbol.iterator]() {
      for (let i = 0; i < this.length; i++) {
        const group = this[i]
        const name = group[0]
        const started = performance.now()
        yield group
        const rss = Math.round(process.memoryUsage.rss() / 1e6)
        times.push(`${Math.round(performance.now() - started)}\t${rss}\t${name}`)
      }
    }
  }
  globalThis.UVU_QUEUE = new TimedQueue()
  process.on('exit', () => {
    if (times.length > 0) appendFileSync(target, `${times.join('\n')}\n`)
  })
}
