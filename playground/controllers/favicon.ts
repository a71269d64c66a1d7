import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { send, type Kernel, type Reply } from 'fw'

/**
 * `GET /favicon.ico`: the playground's icon (`assets/favicon.ico`, a 32×32 icon), read once when
 * the routes are declared. Browsers ask for it on every page; without it each page load logged a
 * 404. Cached for a week by browsers and shared caches.
 */
export function favicon(kernel: Kernel): () => Reply {
  const bytes = new Uint8Array(readFileSync(join(kernel.root, 'assets', 'favicon.ico')))
  return function favicon(): Reply {
    return send(bytes, 'image/x-icon').header('cache-control', 'public, max-age=604800')
  }
}
