import { Option, pluginCommand, UsageError, wholeNumberOption, writeItems } from 'fw/cli'
import type { CommandContext } from 'fw'
import { requireMigrated } from 'fw/plugins/database'
import type { JobsApi } from './types.js'
import { isJobId, JOB_STATES } from './inspect.js'
import { WorkCommand } from './work-command.js'

/**
 * The jobs plugin, once its tables are sure to be there: a database that does not exist is named
 * (never created), and pending migrations are refused (test/plugins/jobs/cli.test.ts).
 */
export async function openJobs(context: CommandContext): Promise<JobsApi> {
  await requireMigrated(context)
  return context.kernel.plugin('jobs')
}

/** `--limit`: from 1 to 10,000 jobs. */
function limitOf(raw: string): number {
  return wholeNumberOption('--limit', raw, 1, 10_000)
}

/** `fw jobs:list [--state S] [--name N] [--limit N] [--json]`. */
export class JobsListCommand extends pluginCommand('jobs:list', {
  category: 'Jobs',
  description: 'List jobs, newest first',
  details: `Prints each job's id, name, state (${JOB_STATES.join(', ')}), attempts, key, when it was dispatched and when it may run; a running job's progress.`,
  examples: [
    ['The last 50 jobs', '$0 jobs:list'],
    ['Jobs waiting to run', '$0 jobs:list --state created'],
  ],
}) {
  state = Option.String('--state', { description: `One state: ${JOB_STATES.join(', ')}` })
  name = Option.String('--name', { description: 'One job name' })
  limit = Option.String('--limit', '50', { description: 'At most this many (default 50)' })
  json = Option.Boolean('--json', false, { description: 'Print the jobs as JSON' })

  async execute(): Promise<number> {
    if (this.state !== undefined && !(JOB_STATES as readonly string[]).includes(this.state))
      throw new UsageError(`--state must be one of ${JOB_STATES.join(', ')}; got '${this.state}'.`)
    const limit = limitOf(this.limit)
    const jobs = await (
      await openJobs(this.context)
    ).list({
      limit,
      ...(this.state === undefined ? {} : { state: this.state }),
      ...(this.name === undefined ? {} : { name: this.name }),
    })
    writeItems(
      this.context.stdout,
      this.json,
      jobs,
      ['Id', 'Name', 'State', 'Attempts', 'Key', 'Dispatched', 'Runs after', 'Progress'],
      (j) => [
        j.id,
        j.name,
        j.state,
        String(j.attempts),
        j.key ?? '',
        j.createdAt,
        j.startAfter,
        j.progress === null ? '' : `${j.progress.done}/${j.progress.total ?? '?'}`,
      ],
    )
    return 0
  }
}

/** `fw jobs:failed [--limit N] [--json]`. */
export class JobsFailedCommand extends pluginCommand('jobs:failed', {
  category: 'Jobs',
  description: 'List failed jobs with their error and attempts',
  details:
    'A job fails once its last attempt failed (its `retries` used up). Failed jobs are kept for 30 days; `fw jobs:retry <id>` puts one back in its queue.',
  examples: [['The failed jobs', '$0 jobs:failed']],
}) {
  limit = Option.String('--limit', '50', { description: 'At most this many (default 50)' })
  json = Option.Boolean('--json', false, { description: 'Print the jobs as JSON' })

  async execute(): Promise<number> {
    const jobs = await (await openJobs(this.context)).failed({ limit: limitOf(this.limit) })
    writeItems(
      this.context.stdout,
      this.json,
      jobs,
      ['Id', 'Name', 'Attempts', 'Failed at', 'Error'],
      (j) => [j.id, j.name, String(j.attempts), j.completedAt ?? '', j.error],
    )
    return 0
  }
}

/** `fw jobs:retry <id>`. */
export class JobsRetryCommand extends pluginCommand('jobs:retry', {
  category: 'Jobs',
  description: 'Put a failed job back in its queue',
  details: 'The job gets one more attempt, run by the next free worker of its queue.',
  examples: [['Retry a job', '$0 jobs:retry 5f0c…']],
}) {
  id = Option.String({ name: 'id' })

  async execute(): Promise<number> {
    if (!isJobId(this.id)) throw new UsageError(`'${this.id}' is not a job id (a UUID).`)
    const jobs = await openJobs(this.context)
    if (!(await jobs.retry(this.id))) throw new UsageError(`no failed job has the id ${this.id}.`)
    this.context.stdout.write(`Job ${this.id} is back in its queue.\n`)
    return 0
  }
}

/** `fw jobs:dispatch <name> [payload] [--delay S] [--key K]`. */
export class JobsDispatchCommand extends pluginCommand('jobs:dispatch', {
  category: 'Jobs',
  description: 'Dispatch a job from the command line',
  details: 'The payload is JSON (default `{}`); the job runs on the next free worker.',
  examples: [['Send a welcome mail', `$0 jobs:dispatch mail.welcome '{"userId":5}'`]],
}) {
  name = Option.String({ name: 'name' })
  payload = Option.String({ name: 'payload', required: false })
  delay = Option.String('--delay', { description: 'Seconds before it may run' })
  key = Option.String('--key', { description: 'Its key (a unique job waiting with it is kept)' })

  async execute(): Promise<number> {
    let payload: unknown = {}
    try {
      if (this.payload !== undefined) payload = JSON.parse(this.payload)
    } catch {
      throw new UsageError(`the payload is not JSON: ${this.payload}`)
    }
    const delay = this.delay === undefined ? undefined : wholeNumberOption('--delay', this.delay, 0)
    const jobs = await openJobs(this.context)
    if (!jobs.definitions().has(this.name))
      throw new UsageError(
        `no job named '${this.name}' (defined: ${[...jobs.definitions().keys()].join(', ') || 'none'}).`,
      )
    const id = await jobs.dispatch(this.name as never, payload as never, {
      ...(delay === undefined ? {} : { delay }),
      ...(this.key === undefined ? {} : { key: this.key }),
    })
    this.context.stdout.write(
      id === null
        ? `A ${this.name} job with the key ${this.key} is already waiting; nothing dispatched.\n`
        : `Dispatched ${this.name} as ${id}.\n`,
    )
    return 0
  }
}

/** The jobs plugin's commands. */
export const jobCommands = [
  WorkCommand,
  JobsListCommand,
  JobsFailedCommand,
  JobsRetryCommand,
  JobsDispatchCommand,
] as const
