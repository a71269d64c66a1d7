import type { Writable } from 'node:stream'
import { definePlugin } from 'fw'

/**
 * `fw dev`'s plugin, beside the reload plugin on every build of the app: a request that answered
 * 500 or more is told on the terminal, one line per error it raised (the method, the path, the
 * status, the error's name and its message as every report shows it, secrets redacted), so a
 * failing template or handler shows where `fw dev` runs and not only in the page and the app's
 * log (test/e2e/dev-server.test.ts). A projection of the request's `exception.raised` events.
 */
export const failedRequestsPlugin = definePlugin<{ stderr: Writable }>({
  name: 'dev-failures',
  setup(kernel, { stderr }) {
    kernel.hooks.annotate.tap({ name: 'dev-failures', stage: 2000 }, (reply, ctx) => {
      if (reply.status < 500) return
      for (const event of ctx.log.all()) {
        if (event.type !== 'exception.raised') continue
        const { name, message } = event.data
        stderr.write(
          `fw dev: ${ctx.method} ${ctx.path} answered ${reply.status}: ${name}: ${message}\n`,
        )
      }
    })
  },
})
