import type PgBoss from 'pg-boss'
import { jobsErrors } from './errors.js'
import type { ScheduleEntry } from './types.js'

/**
 * Refuses, when it is declared, a cron expression pg-boss could not keep: five fields (pg-boss's
 * clock ticks once a minute, so a seconds field would be silently coarsened). What the fields say
 * is checked by pg-boss's parser when a worker stores the schedule ({@link applySchedules}).
 */
export function checkSchedule(entry: ScheduleEntry): void {
  if (typeof entry.cron !== 'string' || entry.cron.trim().split(/\s+/).length !== 5)
    throw scheduleInvalid(
      entry,
      `'${String(entry.cron)}' is not five cron fields (minute hour day month weekday)`,
    )
}

function scheduleInvalid(entry: ScheduleEntry, problem: string) {
  return jobsErrors.error('FW_ERR_JOBS_SCHEDULE_INVALID', { name: entry.name, problem })
}

/**
 * Stores the app's schedules in pg-boss's `schedule` table (one row per job: declaring it again
 * replaces it) and removes the rows of jobs the app no longer schedules. Every worker's pg-boss
 * clock reads the table; a tick is sent once across all of them (pg-boss's cron lock and its
 * one-per-minute singleton: test/plugins/jobs/schedule.test.ts).
 */
export async function applySchedules(
  boss: PgBoss,
  entries: Iterable<ScheduleEntry & { payload: unknown }>,
): Promise<void> {
  const wanted = new Map([...entries].map((e) => [e.name, e]))
  for (const old of await boss.getSchedules())
    if (!wanted.has(old.name)) await boss.unschedule(old.name)
  for (const entry of wanted.values()) {
    try {
      await boss.schedule(entry.name, entry.cron, { payload: entry.payload } as object, {
        tz: entry.tz,
      })
    } catch (error) {
      // pg-boss parses the expression (cron-parser) in the entry's time zone.
      if (!/cron|time ?zone|tz/i.test((error as Error).message ?? '')) throw error
      throw scheduleInvalid(entry, `'${entry.cron}' in ${entry.tz}: ${(error as Error).message}`)
    }
  }
}
