import type { RequestContext } from 'fw'

/** What a handler gets besides its payload: who it is, and when to give up. */
export interface JobRun {
  /** The job's id (a UUID): `fw jobs:retry <id>` takes it. */
  readonly id: string
  readonly name: string
  /** 1 on the first run, 2 on the first retry… */
  readonly attempt: number
  /**
   * Aborted when the job's `timeout` passes or the worker is stopping and the drain time is up:
   * hand it to what the handler awaits (`fetch`, a stream) so that it stops.
   */
  readonly signal: AbortSignal
  /**
   * The run's context: its event log (`job.started` … `job.completed`), where the database plugin
   * records the run's statements.
   */
  readonly context: RequestContext
  /** Records how far the job is (`done` of `total`), readable with `jobs.find(id)` while it runs. */
  progress(done: number, total?: number): Promise<void>
}
