// Preloaded into a server child that the benchmark did not write itself (`fw serve`), with
// `node --import <this file>`: answers the parent's questions over the IPC channel (CPU time,
// resident memory, optionally after a full GC when node runs with --expose-gc) and, when the
// parent goes away, stops the process with SIGTERM (fw drains and exits), so an interrupted
// benchmark leaves no server behind. Plain JavaScript so that it also loads without tsx, in front
// of the compiled CLI. Messages: see ProbeQuestion / ProbeAnswer in playground-child.ts.
if (typeof process.send === 'function') {
  const send = process.send.bind(process)
  process.on('message', (message) => {
    if (message === null || typeof message !== 'object') return
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage()
      send({ type: 'cpu', user, system })
    } else if (message.type === 'memory') {
      const gc = /** @type {{ gc?: () => void }} */ (globalThis).gc
      const collected = message.gc === true && typeof gc === 'function'
      if (collected) gc()
      const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage()
      send({ type: 'memory', rss, heapTotal, heapUsed, external, arrayBuffers, collected })
    }
  })
  process.on('disconnect', () => process.kill(process.pid, 'SIGTERM'))
}
