// What the debug toolbar shows of jobs: the `jobs` key of a request's `_debug` payload (the jobs
// it dispatched, projected from its `job.dispatched` events) and, for an annotated request, the
// runs of one job with their event logs (`GET /_fw/jobs/{id}/runs`), from the last runs this
// process finished (kept only when the debug plugin is registered).
import { json, redact, type AnyEvent, type Kernel } from 'fw'
import type { ProjectionInput } from 'fw/plugins/debug'
import type { FinishedRun } from './run.js'

/** Finished runs kept for the toolbar, newest last. */
const KEPT_RUNS = 200

/** The URL of a job's runs. */
export const runsUrl = (id: string): string => `/_fw/jobs/${id}/runs`

/** The `jobs` key: what this request dispatched, each with where its runs are read. */
export function jobsProjection(i: ProjectionInput, previous: unknown): unknown {
  const dispatched = i.of('job.dispatched')
  if (dispatched.length === 0) return previous
  return dispatched.map((e) => ({
    name: e.data.name,
    id: e.data.id,
    key: e.data.key,
    delay: e.data.delay,
    at: i.ms(e.at),
    runs: e.data.id === null ? undefined : runsUrl(e.data.id),
  }))
}

/** A run's event as the route answers it: statements' parameters masked. */
function shown(event: AnyEvent): unknown {
  if (event.type !== 'query.executed') return event
  return { ...event, data: { ...event.data, params: redact(event.data.params) } }
}

/** Keeps the last runs and serves them to annotated requests. */
export function serveRuns(kernel: Kernel, observers: Array<(run: FinishedRun) => void>): void {
  const runs: FinishedRun[] = []
  observers.push((run) => {
    runs.push(run)
    if (runs.length > KEPT_RUNS) runs.shift()
  })
  const debug = kernel.plugin('debug')
  kernel.router.get('_fw/jobs/{id}/runs', function jobRuns(ctx) {
    if (!debug.isAnnotated(ctx)) return json({ error: 'Not Found' }, 404)
    const id = ctx.params.id
    return json(
      runs
        .filter((run) => run.id === id)
        .map((run) => ({
          name: run.name,
          attempt: run.attempt,
          status: run.status,
          started_at: new Date(run.startedAt).toISOString(),
          duration: Math.round(run.duration * 100) / 100,
          request: run.envelope.request,
          events: run.context.log.all().map(shown),
        })),
    )
  })
}
