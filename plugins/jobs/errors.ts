import { definePluginErrors, type CodesOf } from 'fw'

/** The jobs plugin's error codes: mistakes of the code that defines or dispatches a job. */
export const jobsErrors = definePluginErrors('jobs', {
  FW_ERR_JOBS_DEFINITION_INVALID: {
    when: '`defineJob(name, spec)` got a name or an option it cannot use.',
    fix: 'Follow the message: a name of letters, digits, `.`, `_`, `-` or `/`, a `handler` function, whole numbers for `retries`, `timeout`, `concurrency` and `backoff`.',
    message: ({ name, problem }: { name: string; problem: string }) =>
      `Job '${name}' cannot be defined: ${problem}.`,
  },
  FW_ERR_JOBS_DUPLICATE: {
    when: 'Two jobs were defined with one name (the name is the queue).',
    fix: 'Give each job a name of its own.',
    message: ({ name }: { name: string }) =>
      `A job named '${name}' is already defined. Give each job a name of its own.`,
  },
  FW_ERR_JOBS_UNKNOWN: {
    when: '`dispatch` or `schedule` named a job no one defined.',
    fix: "Define the job (`defineJob`, then the plugin's `jobs` option or `define`) before dispatching it.",
    message: ({ name }: { name: string }) =>
      `No job named '${name}' is defined. Define it with defineJob() and register it with the jobs plugin.`,
  },
  FW_ERR_JOBS_DISPATCH_INVALID: {
    when: '`dispatch` got a payload that is not JSON, or a `delay`, `at` or `key` it cannot use.',
    fix: 'Pass a JSON-serialisable payload, `delay` as whole seconds from 0, `at` as a valid Date, `key` as a non-empty string.',
    message: ({ name, problem }: { name: string; problem: string }) =>
      `Job '${name}' was not dispatched: ${problem}.`,
  },
  FW_ERR_JOBS_SCHEDULE_INVALID: {
    when: '`schedule(cron, job)` got a cron expression or a time zone the parser refuses.',
    fix: 'Use five cron fields (minute hour day month weekday), e.g. `0 3 * * *`, and an IANA time zone.',
    message: ({ name, problem }: { name: string; problem: string }) =>
      `Job '${name}' cannot be scheduled: ${problem}.`,
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof jobsErrors> {}
}
