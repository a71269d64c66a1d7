import { query, type AuthRuntime } from './runtime.js'

/**
 * Lock lengths by failure count (README.md "Flows", Lockout): from 3 failures 60 s, from 5 300 s,
 * from 7 900 s, from 10 3600 s. A failure more than 900 s after the previous one starts the count
 * again; only a completed sign-in clears it.
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

/**
 * An attempt's slot: `reserved` (counted as a failure already; verify the credential, then
 * `clearFailures` on a completed sign-in or `releaseAttempt` on a correct first leg of a two-factor
 * user) or `locked` (verify nothing, answer 429).
 */
export type Reservation =
  | {
      kind: 'reserved'
      key: string
      /** The count this attempt made (itself included). */
      count: number
      /** The attempt's time (Unix ms), which it wrote as `last_failure_at`. */
      at: number
      /** `last_failure_at` before this attempt, when known for certain (see `reserveAttempt`). */
      previousFailureAt: number | undefined
    }
  | { kind: 'locked'; retryAfter: number }

/** Seconds until the username may try again, or undefined when it is not locked. */
export async function lockedFor(rt: AuthRuntime, key: string): Promise<number | undefined> {
  const rows = await query(rt, 'select "locked_until" from "auth_lockouts" where "username" = ?', [
    key,
  ])
  const until = rows[0] === undefined ? 0 : Number(rows[0].locked_until)
  const now = rt.now()
  return until > now ? Math.max(1, Math.ceil((until - now) / 1000)) : undefined
}

/** SQL (and its parameters) for the lock a count earns from a time: `at + step`, or 0 (none). */
function lockSql(count: string, countParams: unknown[], at: string, atParams: unknown[]) {
  const sql = `(case ${LOCK_STEPS.map(([n, s]) => `when ${count} >= ${n} then ${at} + ${s * 1000}`).join(' ')} else 0 end)`
  const params = LOCK_STEPS.flatMap(() => [...countParams, ...atParams])
  return { sql, params }
}

/** The lock a count earns, in ms (0: none), for the first row of a username. */
function lockMs(count: number): number {
  return (LOCK_STEPS.find(([n]) => count >= n)?.[1] ?? 0) * 1000
}

/** How many attempts `reserveAttempt` makes when a lock disappears between its two statements. */
const RESERVE_TRIES = 3

/**
 * Reserves an attempt's slot *before* the credential is checked: one upsert counts the attempt as
 * a failure and sets the lock that count earns, only when the username is not locked now.
 *
 * Why it holds under any concurrency, on any number of instances: PostgreSQL's `on conflict do
 * update` locks the conflicting row and evaluates the `where` against its latest committed version
 * (a racing insert of a new username waits for the other insert, then takes the update path), so
 * reservations of one username are serialised: the one that reaches the third failure sets the
 * lock, and every later one finds `locked_until > now` and updates nothing (PGlite runs one
 * statement at a time anyway). Hence at most 3 credentials are ever checked per lock step, and the
 * request that earns the lock still answers 401 while the next answers 429.
 *
 * When nothing is returned the username is locked, and a second statement reads how long; if the
 * lock vanished in between (a sign-in cleared it, a release lifted it) the reservation is retried.
 *
 * The statement also reads the row as it was, through a CTE. That read sees the statement's
 * snapshot, which under concurrency may be older than the version the upsert updated; it is only
 * trusted when the count it predicts is the count the upsert made (see `releaseAttempt`).
 */
export async function reserveAttempt(rt: AuthRuntime, key: string): Promise<Reservation> {
  for (let i = 0; i < RESERVE_TRIES; i++) {
    const now = rt.now()
    const windowStart = now - FAILURE_WINDOW_MS
    const next = `(case when "auth_lockouts"."last_failure_at" < ?::bigint then 1 else "auth_lockouts"."failures" + 1 end)`
    const lock = lockSql(next, [windowStart], '?::bigint', [now])
    const rows = await query(
      rt,
      `with "before" as (
         select "failures", "last_failure_at" from "auth_lockouts" where "username" = ?
       )
       insert into "auth_lockouts" ("username", "failures", "last_failure_at", "locked_until")
       values (?, 1, ?::bigint, ?::bigint)
       on conflict ("username") do update set
         "failures" = ${next},
         "locked_until" = ${lock.sql},
         "last_failure_at" = excluded."last_failure_at"
       where "auth_lockouts"."locked_until" <= ?::bigint
       returning "failures",
         (select "failures" from "before") as "failures_before",
         (select "last_failure_at" from "before") as "failure_before_at"`,
      [key, key, now, lockMs(1) > 0 ? now + lockMs(1) : 0, windowStart, ...lock.params, now],
    )
    const row = rows[0]
    if (row !== undefined) {
      const count = Number(row.failures)
      const hadRow = row.failures_before !== null && row.failures_before !== undefined
      const beforeAt = hadRow ? Number(row.failure_before_at) : 0
      const predicted = !hadRow || beforeAt < windowStart ? 1 : Number(row.failures_before) + 1
      return {
        kind: 'reserved',
        key,
        count,
        at: now,
        previousFailureAt: predicted === count ? beforeAt : undefined,
      }
    }
    const retryAfter = await lockedFor(rt, key)
    if (retryAfter !== undefined) return { kind: 'locked', retryAfter }
  }
  // Locks that keep appearing and vanishing: refuse this attempt rather than loop.
  return { kind: 'locked', retryAfter: 1 }
}

/**
 * Gives back a reservation whose credential was right but did not complete a sign-in (the first
 * leg of a two-factor user): such a leg neither clears the count nor adds to it. One `update`:
 *
 * - the count goes down by one (never below 0);
 * - when the row is still exactly as this reservation left it (`failures` = its count,
 *   `last_failure_at` = its time), `last_failure_at` goes back to what it was, if known for
 *   certain; otherwise it stays (a later attempt's time, or this one's): never earlier than the
 *   latest counted failure, so the window can only last longer, never shorter;
 * - the lock is recomputed from the new count and that time, exactly as a failure would have set
 *   it. Every count from 3 sets a lock (3–4: 60 s, 5–6: 300 s, 7–9: 900 s, 10+: 3600 s), so the
 *   lock this reservation set is lifted whatever its count; a lock earned by other attempts stays
 *   when their count still earns it.
 *
 * Concurrent cases: (a) this reservation made a count ≥ 3, so it locked the username: until that
 * lock expires no other reservation can change the row, and the release restores the previous
 * state exactly (attempts that arrived meanwhile answered 429 without being checked or counted:
 * the cost is a spurious 429 for the length of one password check, never an extra guess).
 * (b) it made a count of 1 or 2: other attempts may have reserved since. They stay counted (only
 * one is taken off, this one's), and the lock follows from the count without this one, so a lock
 * set only because this reservation was counted is lifted, and one the others earn themselves is
 * kept. (c) a completed sign-in deleted the row meanwhile: the update changes nothing unless an
 * attempt recreated it, in which case that attempt's count is lowered by one; that takes the
 * owner's own completed sign-in racing their own first leg, and the owner's credentials.
 */
export async function releaseAttempt(
  rt: AuthRuntime,
  reservation: Extract<Reservation, { kind: 'reserved' }>,
): Promise<void> {
  const { key, count, at } = reservation
  const restoreTo = reservation.previousFailureAt ?? at
  const lowered = 'greatest("failures" - 1, 0)'
  const restored = `(case when "failures" = ? and "last_failure_at" = ?::bigint then ?::bigint else "last_failure_at" end)`
  const restoredParams = [count, at, restoreTo]
  const lock = lockSql(lowered, [], restored, restoredParams)
  const rows = await query(
    rt,
    `update "auth_lockouts" set
       "failures" = ${lowered},
       "last_failure_at" = ${restored},
       "locked_until" = ${lock.sql}
     where "username" = ?
     returning "failures"`,
    [...restoredParams, ...lock.params, key],
  )
  if (rows[0] !== undefined && Number(rows[0].failures) === 0)
    await query(
      rt,
      'delete from "auth_lockouts" where "username" = ? and "failures" = 0 returning "username"',
      [key],
    )
}

/** Clears the username's count: a sign-in completed. */
export async function clearFailures(rt: AuthRuntime, key: string): Promise<void> {
  await query(rt, 'delete from "auth_lockouts" where "username" = ? returning "username"', [key])
}
