import { Kernel } from './kernel.js'
import type { KernelOptions } from './types.js'

/**
 * Creates a kernel: the hooks, the router, the configuration. Register plugins, then `boot()`, then
 * `listen()` or `inject()`.
 *
 * @example
 * const kernel = createKernel({ config: { app: { name: 'shop' } } })
 * kernel.router.get('hello', () => ({ hello: 'world' }))
 * const res = await kernel.inject({ url: '/hello' })
 */
export function createKernel(options: KernelOptions = {}): Kernel {
  return new Kernel(options)
}
