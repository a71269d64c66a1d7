import { query, type AuthRuntime } from './runtime.js'

/**
 * Lock lengths by failure count (spec-notes "Login and tokens"): from 3 failures 60 s, from 5
 * 300 s, from 7 900 s, from 10 3600 s. A failure more than 900 s after the previous one starts the
 * count again; only a completed sign-in clears it.
 */
export const LOCK_STEPS: readonly (readonly [failures: number, seconds: number])[] = [
  [10, 3600],
  [7, 900],
  [5, 300],
  [3, 60],
]
/** A failure more than this long after the previous one counts as the first again. */
export const FAILURE_WINDOW_MS = 900_000

/** The lockout key of a submitted username: trimmed, lower-cased (and at most 100 characters). */
export function lockoutKey(username: string): string {
  return username.trim().toLowerCase().slice(0, 100)
}

/** Seconds until the username may try again, or undefined when it is not locked. */
export async function lockedFor(rt: AuthRuntime, key: string): Promise<number | undefined> {
  const rows = await query(rt, 'select "locked_until" from "auth_lockouts" where "username" = ?', [
    key,
  ])
  const until = rows[0] === undefined ? 0 : Number(rows[0].locked_until)
  const now = rt.now()
  return until > now ? Math.max(1, Math.ceil((until - now) / 1000)) : undefined
}

// The new count, as SQL over the row being updated: 1 when the previous failure is too old.
const NEXT_COUNT = `(case when "auth_lockouts"."last_failure_at" < ?::bigint then 1 else "auth_lockouts"."failures" + 1 end)`
const LOCK_MS = `(case ${LOCK_STEPS.map(([n, s]) => `when ${NEXT_COUNT} >= ${n} then ?::bigint + ${s * 1000}`).join(' ')} else 0 end)`

/**
 * Counts a failed attempt for the username, in one statement (an upsert), so that concurrent
 * failures on several instances each count. Answers the new count.
 */
export async function recordFailure(rt: AuthRuntime, key: string): Promise<number> {
  const now = rt.now()
  const windowStart = now - FAILURE_WINDOW_MS
  const lockParams = LOCK_STEPS.flatMap(() => [windowStart, now])
  const rows = await query(
    rt,
    `insert into "auth_lockouts" ("username", "failures", "last_failure_at", "locked_until")
     values (?, 1, ?::bigint, 0)
     on conflict ("username") do update set
       "failures" = ${NEXT_COUNT},
       "locked_until" = ${LOCK_MS},
       "last_failure_at" = excluded."last_failure_at"
     returning "failures"`,
    [key, now, windowStart, ...lockParams],
  )
  return Number(rows[0]?.failures ?? 1)
}

/** Clears the username's count: a sign-in completed. */
export async function clearFailures(rt: AuthRuntime, key: string): Promise<void> {
  await query(rt, 'delete from "auth_lockouts" where "username" = ? returning "username"', [key])
}
