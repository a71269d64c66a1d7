// Preloaded into a served app by lean-request.test.ts: counts the promises the process creates
// (async_hooks `PROMISE` resources) and prints the count on SIGUSR2 as `promises: <n>`.
import { createHook } from 'node:async_hooks'

let promises = 0
createHook({
  init(_id, type) {
    if (type === 'PROMISE') promises++
  },
}).enable()
process.on('SIGUSR2', () => process.stdout.write(`promises: ${promises}\n`))
