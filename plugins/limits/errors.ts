import { definePluginErrors, type CodesOf } from 'fw'

/** The limits plugin's error codes. */
export const limitsErrors = definePluginErrors('limits', {
  FW_ERR_LIMITS_INVALID: {
    when: 'A limiter was declared with a name or a figure it cannot use.',
    fix: 'The message names the limiter and the problem; fix its declaration.',
    message: ({ name, problem }: { name: string; problem: string }) =>
      `Limiter ${name}: ${problem}.`,
  },
  FW_ERR_LIMITS_UNKNOWN: {
    when: "`kernel.plugin('limits').limiter(name)` named a limiter nobody defined.",
    fix: 'Define it first (`define(name, options)` or the `limiters` option), or fix the name.',
    message: ({ name, known }: { name: string; known: string }) =>
      `No limiter named ${name}. Defined: ${known}.`,
  },
  FW_ERR_LIMITS_STORE: {
    when: '`limits.store` names a store the app cannot use: `database` without the database plugin on PostgreSQL, or `redis` without `limits.redis_url`.',
    fix: 'Use `memory` for one process, `database` on PostgreSQL, or set `limits.redis_url`.',
    message: ({ problem }: { problem: string }) => `Rate limits: ${problem}.`,
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof limitsErrors> {}
}
