import { setFlagsFromString } from 'node:v8'

let tuned = false

/**
 * Turns off V8's allocation-site pretenuring in this process, once, when the first kernel is
 * created (before any plugin boots). V8 starts allocating the objects of a code site (an object or
 * array literal) straight in the old generation once most of the ones it saw outlived a minor
 * collection. A server's boot makes objects that live as long as the process (the boot log, route
 * tables, ORM metadata) at the same sites that later make each request's short-lived objects: those
 * are then born old, keep the young objects they point to alive through every minor collection, and
 * only a full collection frees them. `FW_V8_PRETENURING=1` keeps V8's default.
 *
 * Guarded by test/kernel/v8-heap.test.ts (a site tenured at boot no longer fills the old
 * generation); its cost on a server by bench/techempower.ts (db, fortunes), and the promotion it
 * stops shows in `node --trace-gc-nvp` (`promoted=`).
 */
export function tuneHeap(env: NodeJS.ProcessEnv): void {
  if (tuned) return
  tuned = true
  if (env.FW_V8_PRETENURING === '1') return
  setFlagsFromString('--no-allocation-site-pretenuring')
}
