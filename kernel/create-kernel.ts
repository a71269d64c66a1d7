import { Kernel } from './kernel.js'
import type { KernelOptions } from './types.js'
import { tuneHeap } from './v8-heap.js'

/**
 * Creates a kernel: the hooks, the router, the configuration. Register plugins, then `boot()`, then
 * `listen()` or `inject()`. The first one created tunes V8's heap for serving (kernel/v8-heap.ts).
 *
 * @example
 * const kernel = createKernel({ config: { app: { name: 'shop' } } })
 * kernel.router.get('hello', () => ({ hello: 'world' }))
 * const res = await kernel.inject({ url: '/hello' })
 */
export function createKernel(options: KernelOptions = {}): Kernel {
  tuneHeap(options.env ?? process.env)
  return new Kernel(options)
}
