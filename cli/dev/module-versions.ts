import module from 'node:module'
import { pathToFileURL } from 'node:url'
import { MessageChannel } from 'node:worker_threads'
import type { VersionHooksData } from './version-hooks.js'

/** The app's modules, versioned (version-hooks.ts): what `fw dev` imports anew after an edit. */
export interface ModuleVersions {
  /**
   * Bumps the changed files and their importers; resolves with how many modules that was. `reset`
   * forgets every resolution made (a package.json changed: `exports` may point elsewhere).
   */
  invalidate(files: readonly string[], reset?: boolean): Promise<number>
}

/**
 * Registers the loader hooks that version the modules under `root` (after tsx's, so they see the
 * resolved `.ts` file). Development only: `fw serve` never calls it.
 */
export function versionModules(root: string): ModuleVersions {
  const { port1, port2 } = new MessageChannel()
  const hooks = import.meta.url.endsWith('.ts') ? './version-hooks.ts' : './version-hooks.js'
  const data: VersionHooksData = {
    root: `${pathToFileURL(root).href.replace(/\/$/, '')}/`,
    port: port2,
  }
  module.register(new URL(hooks, import.meta.url), { data, transferList: [port2] })
  let next = 0
  const waiting = new Map<number, (bumped: number) => void>()
  port1.on('message', (message: { id: number; bumped: number }) => {
    waiting.get(message.id)?.(message.bumped)
    waiting.delete(message.id)
    if (waiting.size === 0) port1.unref()
  })
  // After the listener, which refs the port: held only while an answer is awaited, so that the
  // stopped `fw dev` exits at once (test/e2e/dev-server.test.ts).
  port1.unref()
  return {
    invalidate(files, reset = false) {
      const id = ++next
      port1.ref()
      port1.postMessage({ id, changed: files.map((file) => pathToFileURL(file).href), reset })
      return new Promise((resolve) => waiting.set(id, resolve))
    },
  }
}
