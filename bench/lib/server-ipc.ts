// The child side of a benchmark server: tells the parent its port over IPC, answers CPU-usage
// questions (so the parent can compute CPU time per request on the server side), and exits when
// the parent goes away, so an interrupted benchmark leaves no server behind.

/** A message the parent sends to a server child. */
export type ParentMessage = { readonly type: 'cpu' }

/** A message a server child sends to its parent. */
export type ChildMessage =
  | { readonly type: 'listening'; readonly port: number }
  | { readonly type: 'cpu'; readonly user: number; readonly system: number }

/** Reports `port` to the parent and serves its questions until it disconnects. */
export function announce(port: number, close: () => void): void {
  const send = process.send?.bind(process)
  if (!send) {
    // Started by hand: say where we are and run until interrupted.
    console.log(`listening on http://127.0.0.1:${port}`)
    return
  }
  process.on('message', (message: ParentMessage) => {
    if (message.type === 'cpu') {
      const { user, system } = process.cpuUsage()
      send({ type: 'cpu', user, system } satisfies ChildMessage)
    }
  })
  process.on('disconnect', () => {
    close()
    process.exit(0)
  })
  send({ type: 'listening', port } satisfies ChildMessage)
}
