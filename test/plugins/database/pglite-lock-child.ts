// Run as a child process by pglite-lock-race.test.ts: waits for the start time it is given, then
// locks the data directory, prints `locked` or `in use`, and holds the lock until its stdin ends.
import { lockDataDir } from '../../../plugins/database/pglite-lock.js'

const [dataDir, startAt] = process.argv.slice(2)
while (Date.now() < Number(startAt)) {
  // Spin: every child asks for the lock in the same few milliseconds.
}
let release = (): void => undefined
try {
  release = lockDataDir(dataDir!)
  console.log('locked')
} catch (error) {
  const code = (error as { code?: string }).code
  console.log(code === 'FW_ERR_DATABASE_IN_USE' ? 'in use' : `failed: ${String(error)}`)
}
process.stdin.resume()
process.stdin.on('end', () => {
  release()
  process.exit(0)
})
