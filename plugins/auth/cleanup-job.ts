import type { JobsApi } from 'fw/plugins/jobs'
// The module alone, not the plugin's index: jobs is an optional dependency of auth.
import { defineJob } from 'fw/plugins/jobs/define-job'
import { FAILURE_WINDOW_MS } from './lockout.js'
import { query, type AuthRuntime } from './runtime.js'

/** What one cleanup removed. */
export interface CleanupCounts {
  tokens: number
  pendingLogins: number
  lockouts: number
}

/**
 * Deletes what can no longer be used: tokens and web sessions past their expiry (`expires`, Unix
 * seconds), pending second-factor logins past theirs (Unix ms), and lockout rows whose lock has
 * ended and whose failure window has passed (they would count nothing any more). A revoked row
 * that has not expired stays: it is what refuses its token until then.
 */
export async function cleanUpAuth(rt: AuthRuntime): Promise<CleanupCounts> {
  const now = rt.now()
  const tokens = await query(
    rt,
    'delete from "auth_tokens" where "expires" is not null and "expires" < ? returning "id"',
    [Math.floor(now / 1000)],
  )
  const pending = await query(
    rt,
    'delete from "auth_pending_logins" where "expires_at" < ? returning "id"',
    [now],
  )
  const lockouts = await query(
    rt,
    'delete from "auth_lockouts" where "locked_until" < ? and "last_failure_at" < ? returning "username"',
    [now, now - FAILURE_WINDOW_MS],
  )
  return { tokens: tokens.length, pendingLogins: pending.length, lockouts: lockouts.length }
}

/** The cleanup as the job `auth.cleanup`, scheduled daily at 03:17 UTC (a quiet, odd minute). */
export function scheduleCleanup(jobs: JobsApi, rt: AuthRuntime): void {
  const job = defineJob('auth.cleanup', {
    retries: 3,
    backoff: { delay: 60, exponential: true },
    timeout: 600,
    handler: async (_payload: Record<string, never>) => {
      const removed = await cleanUpAuth(rt)
      rt.kernel.logger.info('auth: expired tokens, sessions and lockouts removed', { ...removed })
    },
  })
  jobs.define(job)
  jobs.schedule('17 3 * * *', job, {})
}
