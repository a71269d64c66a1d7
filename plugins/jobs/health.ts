import type { Kernel } from 'fw'
import type { HealthCheck, HealthResult } from 'fw/plugins/health'
import type { JobsApi, QueueStats } from './types.js'

/** `mail.welcome` → `jobs_mail_welcome`: a health check's snake_case name for a queue. */
export function checkNameOf(queue: string): string {
  const words = queue
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
  return `jobs_${words || 'queue'}`
}

/**
 * One health check per queue: `down` when the queue's tables cannot be read, `degraded` when
 * more jobs wait than `jobs.backlog_warn` or the oldest one that may run has waited longer than
 * `jobs.oldest_warn` seconds, `ok` otherwise. The checks of one run share one read of the counts.
 */
export function queueChecks(kernel: Kernel, jobs: JobsApi): HealthCheck[] {
  let shared: { at: number; stats: Promise<QueueStats[]> } | undefined
  const stats = () => {
    if (shared === undefined || Date.now() - shared.at > 500)
      shared = { at: Date.now(), stats: jobs.stats() }
    return shared.stats
  }
  return [...jobs.definitions().keys()].map((queue) => {
    const name = checkNameOf(queue)
    return {
      name,
      async run(): Promise<HealthResult> {
        const { backlog_warn: backlog, oldest_warn: oldest } = kernel.config.jobs
        let found: QueueStats | undefined
        try {
          found = (await stats()).find((s) => s.name === queue)
        } catch (error) {
          return { status: 'down', name, message: `queue ${queue}: ${(error as Error).message}` }
        }
        const s = found ?? { waiting: 0, running: 0, failed: 0, oldestWaitingSeconds: 0 }
        const details = {
          queue,
          waiting: s.waiting,
          running: s.running,
          failed: s.failed,
          oldest_waiting_s: Math.round(s.oldestWaitingSeconds),
        }
        const late = s.oldestWaitingSeconds > oldest
        const status = s.waiting > backlog || late ? 'degraded' : 'ok'
        const message =
          status === 'ok'
            ? `${s.waiting} waiting, ${s.running} running`
            : late
              ? `the oldest job has waited ${Math.round(s.oldestWaitingSeconds)} s (over ${oldest} s)`
              : `${s.waiting} jobs waiting (over ${backlog})`
        return { status, name, message, details }
      },
    }
  })
}
