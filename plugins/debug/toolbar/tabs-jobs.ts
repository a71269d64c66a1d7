// The Jobs tab: the background jobs the selected request dispatched (the jobs plugin's
// `job.dispatched` events, projected under `jobs`), each of which opens its finished runs: every
// attempt's event log, its SQL and its failure (`GET /_fw/jobs/{id}/runs`, read when opened).
import { unwrappedFetch } from './capture.js'
import { h, ms, note, table, text, type Child } from './dom.js'
import type { View } from './state.js'
import { listTab, type Tab } from './tab.js'

/** One attempt as `GET /_fw/jobs/{id}/runs` answers it. */
interface Run {
  attempt?: number
  status?: string
  duration?: number
  started_at?: string
  events?: { type?: string; at?: number; data?: Record<string, unknown> }[]
}

/** A job's runs as fetched: loading, read (none yet: the job has not run), or failed. */
type Runs = 'loading' | Run[] | { failed: string }

/** Runs read so far, by the runs URL (a job that has not run yet is read again when reopened). */
const opened = new Map<string, Runs>()

function open(view: View, url: string): void {
  opened.set(url, 'loading')
  view.refresh()
  // The toolbar's own fetch: not a row of the Requests tab.
  unwrappedFetch(url, { credentials: 'same-origin', headers: { accept: 'application/json' } })
    .then(async (res) => {
      if (!res.ok) throw new Error(`HTTP ${res.status}`)
      opened.set(url, (await res.json()) as Run[])
    })
    .catch((error: unknown) => opened.set(url, { failed: String(error) }))
    .finally(() => view.refresh())
}

/** What an event says in one line: a statement's SQL, a line's or failure's message. */
function detail(e: NonNullable<Run['events']>[number]): Child {
  const data = e.data ?? {}
  if (e.type === 'query.executed')
    return h('code', { class: data.failed === true ? 'bad' : '' }, text(data.sql))
  if (e.type === 'exception.raised') return h('span', { class: 'bad' }, text(data.message))
  if (e.type === 'log.written') return `${text(data.level)}: ${text(data.message)}`
  if (e.type === 'job.completed') return text(data.status)
  if (e.type === 'job.started') return `attempt ${text(data.attempt)}`
  return ''
}

function runsOf(url: string): Child {
  const runs = opened.get(url)
  if (runs === undefined) return null
  if (runs === 'loading') return note('Reading the runs…')
  if (!Array.isArray(runs))
    return note(h('span', { class: 'bad' }, `Could not read: ${runs.failed}`))
  if (runs.length === 0) return note('No finished run in this process yet.')
  return runs.map((run) =>
    h(
      'div',
      { class: 'job-run' },
      h(
        'p',
        null,
        h('strong', null, `Attempt ${run.attempt ?? '?'}`),
        ` · ${run.status ?? ''} · ${run.duration === undefined ? '' : ms(run.duration)}`,
      ),
      table(
        ['At', 'Event', 'Detail'],
        (run.events ?? []).map((e) => [
          e.at === undefined ? '' : ms(e.at),
          e.type ?? '',
          detail(e),
        ]),
        'job-events',
      ),
    ),
  )
}

export const JOBS: Tab = listTab('jobs', 'Jobs', (jobs, v) => [
  table(
    ['Job', 'Id', 'Key', 'Delay', 'At', ''],
    jobs.map((j) => [
      j.name ?? '',
      j.id ?? h('span', { class: 'note' }, 'not enqueued: a duplicate'),
      j.key ?? '',
      j.delay === undefined || j.delay === 0 ? '' : `${j.delay} s`,
      j.at === undefined ? '' : ms(j.at),
      j.runs === undefined
        ? ''
        : h('button', { class: 'runs', 'on:click': () => open(v, j.runs!) }, 'Runs'),
    ]),
    'jobs',
  ),
  jobs.map((j) =>
    j.runs === undefined || !opened.has(j.runs)
      ? null
      : h(
          'section',
          { class: 'job', 'data-job': j.id ?? '' },
          h('h4', null, j.name ?? ''),
          runsOf(j.runs),
        ),
  ),
])
