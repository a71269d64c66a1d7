// The dev panel (feature `DevPanel`): `/devpanel/logs?request=<id>` answers the log lines of one
// request, read from the app's own log file and selected by their `request` field only (never by
// time); `/devpanel` lists recent request ids with their lines. For a debug-grant holder or a user
// of usertype >= 90.
import { createReadStream, existsSync } from 'node:fs'
import { basename } from 'node:path'
import { createInterface } from 'node:readline'
import {
  escapeHtml,
  html,
  json,
  redact,
  type Kernel,
  type Redaction,
  type Reply,
  type RequestContext,
} from 'fw'

/** Lines answered per request, at most. */
export const MAX_PANEL_LINES = 500
/** Requests the `/devpanel` page lists. */
export const PANEL_REQUESTS = 50
const REQUEST_ID = /^[0-9a-f]{16}$/

/** One log line as the panel answers it. */
export interface PanelLine {
  timestamp: string | null
  level: string | null
  message: string | null
  file: string
  context: Record<string, unknown>
}

const OWN_KEYS = new Set(['level', 'time', 'msg', 'app', 'request'])

function toPanelLine(
  entry: Record<string, unknown>,
  file: string,
  redaction: Redaction | undefined,
): PanelLine {
  const context: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(entry)) if (!OWN_KEYS.has(k)) context[k] = v
  return {
    timestamp: typeof entry.time === 'string' ? entry.time : null,
    level: typeof entry.level === 'string' ? entry.level : null,
    message: typeof entry.msg === 'string' ? entry.msg : null,
    file: basename(file),
    context: (redaction === undefined ? redact(context) : redaction.redact(context)) as Record<
      string,
      unknown
    >,
  }
}

/** Reads the log file line by line; calls `each` with every JSON line that carries a request id. */
async function scan(
  file: string,
  each: (request: string, entry: Record<string, unknown>) => void,
  only?: string,
): Promise<void> {
  if (!existsSync(file)) return
  const lines = createInterface({
    input: createReadStream(file, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  })
  for await (const line of lines) {
    // Cheap filter first: a line of another request is never parsed.
    if (only !== undefined ? !line.includes(only) : !line.includes('"request"')) continue
    let entry: unknown
    try {
      entry = JSON.parse(line)
    } catch {
      continue
    }
    if (entry === null || typeof entry !== 'object') continue
    const request = (entry as Record<string, unknown>).request
    if (typeof request !== 'string') continue
    if (only !== undefined && request !== only) continue
    each(request, entry as Record<string, unknown>)
  }
}

/**
 * The log lines whose `request` field equals `id`: the last 500, their context masked again by
 * `redaction` (a kernel's; the built-in list without one).
 */
export async function linesOf(
  file: string,
  id: string,
  redaction?: Redaction,
): Promise<PanelLine[]> {
  const out: PanelLine[] = []
  await scan(
    file,
    (_request, entry) => {
      out.push(toPanelLine(entry, file, redaction))
      if (out.length > MAX_PANEL_LINES) out.shift()
    },
    id,
  )
  return out
}

const noStore = (reply: Reply): Reply => reply.header('cache-control', 'no-store, private')

/** The usertype the dev panel answers (without a debug grant). */
const PANEL_USERTYPE = 90

/** Whether the request's user may read the dev panel: a debug-grant holder, or usertype ≥ 90. */
async function mayReadLogs(
  ctx: RequestContext,
  hasGrant: (ctx: RequestContext) => boolean,
): Promise<boolean> {
  if (hasGrant(ctx)) return true
  const who = await ctx.identity()
  return (who?.usertype ?? 0) >= PANEL_USERTYPE
}

/**
 * What the payload's `devpanel` says: whether the dev panel answers this user, as far as the
 * request knows without asking who it is (asking would resolve the identity, with its events and
 * session phase, on a route that never asked): true for a grant holder, the answer for an identity
 * the request resolved (its last `auth.resolved` event that refused nothing), null when it resolved
 * none. The toolbar
 * offers the server log only after a `true` (test/browser/requests.test.ts "server log button").
 */
export function knownLogAccess(
  ctx: RequestContext,
  hasGrant: (ctx: RequestContext) => boolean,
): boolean | null {
  if (hasGrant(ctx)) return true
  const events = ctx.log.all()
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i]!
    if ((e.type as string) !== 'auth.resolved') continue
    const data = e.data as { user?: { usertype?: number } | null; refused?: string }
    // A refused credential (a session cookie without its CSRF token, a bad bearer) says nothing
    // about whom the panel's own GET, which carries the cookie, would answer.
    if (data.refused !== undefined) continue
    return (data.user?.usertype ?? 0) >= PANEL_USERTYPE
  }
  return null
}

/** Declares `/devpanel/logs` and, unless `page` is false (the `spa` option), `/devpanel`. */
export function declareDevPanel(
  kernel: Kernel,
  hasGrant: (ctx: RequestContext) => boolean,
  options: { page: boolean; logFile: () => string | undefined },
): void {
  const logFile = options.logFile
  const allowed = (ctx: RequestContext): Promise<boolean> => mayReadLogs(ctx, hasGrant)

  kernel.router
    .get('devpanel/logs', async (ctx) => {
      const raw = ctx.query.request
      const id = typeof raw === 'string' ? raw : undefined
      if (id === undefined || !REQUEST_ID.test(id)) {
        return noStore(
          json({ error: 'Give the request id: ?request=<16 lowercase hex characters>.' }, 400),
        )
      }
      if (!(await allowed(ctx))) return noStore(json({ error: 'forbidden' }, 403))
      const file = logFile()
      const lines = file === undefined ? [] : await linesOf(file, id, kernel.redaction)
      return noStore(json({ request: id, count: lines.length, lines }))
    })
    .name('devpanel.logs')

  if (!options.page) return
  kernel.router
    .get('devpanel', async (ctx) => {
      if (!(await allowed(ctx))) {
        return noStore(
          html(
            '<!doctype html><html><head><title>Dev panel</title></head><body><h1>Dev panel</h1><p>Sign in as an administrator, or open a debug link (fw debug:token), to see this page.</p></body></html>',
            403,
          ),
        )
      }
      const file = logFile()
      const byRequest = new Map<string, PanelLine[]>()
      if (file !== undefined) {
        await scan(file, (request, entry) => {
          let lines = byRequest.get(request)
          if (lines === undefined) byRequest.set(request, (lines = []))
          else {
            // Most recent last: move the request to the end of the map's order.
            byRequest.delete(request)
            byRequest.set(request, lines)
          }
          if (lines.length < MAX_PANEL_LINES) lines.push(toPanelLine(entry, file, kernel.redaction))
          if (byRequest.size > PANEL_REQUESTS * 4) {
            const oldest = byRequest.keys().next().value
            if (oldest !== undefined) byRequest.delete(oldest)
          }
        })
      }
      const recent = [...byRequest.entries()].slice(-PANEL_REQUESTS).reverse()
      const rows = recent
        .map(
          ([id, lines]) =>
            `<section><h2><a href="/devpanel/logs?request=${id}">${id}</a> <small>${lines.length} line(s)</small></h2><ul>${lines
              .map(
                (l) =>
                  `<li><time>${escapeHtml(l.timestamp ?? '')}</time> <b>${escapeHtml(l.level ?? '')}</b> ${escapeHtml(l.message ?? '')} <code>${escapeHtml(JSON.stringify(l.context))}</code></li>`,
              )
              .join('')}</ul></section>`,
        )
        .join('\n')
      return noStore(
        html(
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Dev panel · fw</title></head><body><h1>Dev panel</h1><p>${
            file === undefined
              ? 'No log file (the logging plugin is not registered).'
              : `Log: ${escapeHtml(basename(file))}`
          }. The ${PANEL_REQUESTS} most recent requests with log lines, newest first.</p>\n${rows || '<p>No request has logged anything yet.</p>'}\n</body></html>`,
        ),
      )
    })
    .name('devpanel')
}
