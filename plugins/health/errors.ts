import { definePluginErrors, type CodesOf } from 'fw'

/** The health plugin's error codes: mistakes of the code that registers a check (500s). */
export const healthErrors = definePluginErrors('health', {
  FW_ERR_HEALTH_CHECK_NAME: {
    when: "`register(check)` got a check whose `name` is not snake_case: lowercase letters and digits, words joined by single `_`, starting with a letter (`disk_space`, `job_queue`). Names key the report's `checks`, the IETF format's components and `fw health:check --only`.",
    fix: "Rename the check, e.g. `'hello_stats'` for the plugin `hello-stats` (its name with `_` for `-`).",
    message: ({ name }: { name: string }) =>
      `A health check needs a snake_case name: lowercase letters and digits, words joined by _ (like 'disk_space' or 'hello_stats'); got ${name}.`,
  },
  FW_ERR_HEALTH_CHECK_INVALID: {
    when: '`register(check)` got a check without a `run()` function.',
    fix: 'Give the check `run()`, returning (or resolving to) a result: `result(status, name, message)`.',
    message: ({ name }: { name: string }) =>
      `Health check '${name}' needs a run() function returning its result.`,
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof healthErrors> {}
}
