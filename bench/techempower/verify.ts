// A verifier for TechEmpower's six test types, written from the published rules: it asks a server
// what the benchmark's clients would ask and checks every answer. Used by bench/techempower.ts
// against each server before loading it (a problem fails the benchmark) and by
// test/e2e/techempower.test.ts.
//
// Checked, on every response: status 200; `Server`; a `Date` in IMF-fixdate form that changes
// once the clock has passed a second (not cached); `Content-Length` matching the body or
// `Transfer-Encoding: chunked`; the exact content type of the test. Then, per test:
// - json: exactly `{"message":"Hello, World!"}`;
// - plaintext: exactly `Hello, World!`, also 16 requests pipelined on one socket;
// - db: one `{id, randomNumber}` object, both integers in 1…10,000, equal to the database's row;
// - queries: `?queries=` clamped to 1…500 (0 → 1, 501 → 500), anything not an integer (absent,
//   empty, `foo`, `1.5`) → 1; that many valid objects;
// - fortunes: the HTML table holds the 12 rows of `fortune` plus the one added at request time,
//   sorted by message, every value escaped (no raw `<script>`), UTF-8 intact;
// - updates: the same counts as queries; after a 500-row update, each returned row's number is the
//   one the database holds, and at least 90 % of the distinct rows changed.
import { request } from 'node:http'
import { connect } from 'node:net'
import { ADDED_FORTUNE, FORTUNES } from './schema.mjs'

/** Reads `randomnumber` of the given `world` ids from the database under test. */
export type ReadWorld = (ids: readonly number[]) => Promise<ReadonlyMap<number, number>>

interface Answer {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly body: Buffer
}

/** One GET on a fresh connection, bounded to 10 s. */
function get(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      )
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`no answer from ${url} within 10 s`)))
    req.on('error', reject)
    req.end()
  })
}

const CONTENT_TYPES = {
  json: /^application\/json(; ?charset=(UTF|utf)-8)?$/,
  html: /^text\/html; ?charset=(UTF|utf)-8$/,
  plaintext: /^text\/plain(; ?charset=(UTF|utf)-8)?$/,
} as const
type Kind = keyof typeof CONTENT_TYPES

// IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`.
const IMF_FIXDATE =
  /^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/

function checkHeaders(answer: Answer, kind: Kind, at: string, problems: string[]): void {
  const h = answer.headers
  if (answer.status !== 200) problems.push(`${at}: status ${answer.status}, expected 200`)
  if (h.server === undefined) problems.push(`${at}: no Server header`)
  const date = h.date
  if (typeof date !== 'string') problems.push(`${at}: no Date header`)
  else if (!IMF_FIXDATE.test(date) || Number.isNaN(Date.parse(date)))
    problems.push(`${at}: Date "${date}" is not an IMF-fixdate`)
  const type = h['content-type']
  if (typeof type !== 'string' || !CONTENT_TYPES[kind].test(type))
    problems.push(`${at}: content type "${String(type)}" does not match ${CONTENT_TYPES[kind]}`)
  const length = h['content-length']
  if (length !== undefined) {
    if (Number(length) !== answer.body.byteLength)
      problems.push(`${at}: Content-Length ${length} but ${answer.body.byteLength} bytes of body`)
  } else if (h['transfer-encoding'] !== 'chunked') {
    problems.push(`${at}: neither Content-Length nor Transfer-Encoding: chunked`)
  }
}

function parseJson(answer: Answer, at: string, problems: string[]): unknown {
  try {
    return JSON.parse(answer.body.toString('utf8')) as unknown
  } catch {
    problems.push(`${at}: body is not JSON: ${answer.body.toString('utf8').slice(0, 80)}`)
    return undefined
  }
}

const isInt = (v: unknown, min: number, max: number): v is number =>
  typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max

interface World {
  readonly id: number
  readonly randomNumber: number
}

function checkWorld(value: unknown, at: string, problems: string[]): value is World {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`${at}: expected an object {id, randomNumber}, got ${JSON.stringify(value)}`)
    return false
  }
  const keys = Object.keys(value).sort().join(',')
  const { id, randomNumber } = value as Record<string, unknown>
  if (keys !== 'id,randomNumber' || !isInt(id, 1, 10_000) || !isInt(randomNumber, 1, 10_000)) {
    problems.push(
      `${at}: expected {id, randomNumber} with integers in 1…10000, got ${JSON.stringify(value)}`,
    )
    return false
  }
  return true
}

function checkWorlds(value: unknown, expected: number, at: string, problems: string[]): World[] {
  if (!Array.isArray(value)) {
    problems.push(`${at}: expected a JSON array, got ${JSON.stringify(value)?.slice(0, 80)}`)
    return []
  }
  if (value.length !== expected)
    problems.push(`${at}: ${value.length} objects, expected ${expected}`)
  const before = problems.length
  const worlds = value.filter((w) => problems.length - before < 3 && checkWorld(w, at, problems))
  return worlds as World[]
}

/** `?queries=` values and the number of rows each must answer. */
const QUERY_CASES: readonly (readonly [string | undefined, number])[] = [
  [undefined, 1],
  ['', 1],
  ['foo', 1],
  ['1.5', 1],
  ['-3', 1],
  ['0', 1],
  ['1', 1],
  ['2', 2],
  ['20', 20],
  ['501', 500],
]

const queriesUrl = (base: string, path: string, q: string | undefined): string =>
  q === undefined ? `${base}${path}` : `${base}${path}?queries=${encodeURIComponent(q)}`

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decodeHtml(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#')
      return String.fromCodePoint(
        ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : Number(ref.slice(1)),
      )
    return ENTITIES[ref.toLowerCase()] ?? whole
  })
}

/** The rows the fortunes page must show, in order (sorted by message, by code point). */
export function expectedFortunes(): (readonly [number, string])[] {
  const rows: [number, string][] = [...FORTUNES.map(([id, m]) => [id, m] as [number, string])]
  rows.push([0, ADDED_FORTUNE])
  const codePoints = (s: string): number[] => [...s].map((c) => c.codePointAt(0) as number)
  return rows.sort(([, a], [, b]) => {
    const x = codePoints(a)
    const y = codePoints(b)
    for (let i = 0; i < Math.min(x.length, y.length); i++)
      if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number)
    return x.length - y.length
  })
}

function checkFortunes(answer: Answer, at: string, problems: string[]): void {
  const body = answer.body.toString('utf8')
  const squeezed = body.replace(/>\s+</g, '><').trim()
  if (!/^<!doctype html>/i.test(squeezed)) problems.push(`${at}: no <!doctype html>`)
  if (!/<title>Fortunes<\/title>/.test(squeezed)) problems.push(`${at}: no <title>Fortunes</title>`)
  if (!/<table><tr><th>id<\/th><th>message<\/th><\/tr>/.test(squeezed))
    problems.push(`${at}: no header row <tr><th>id</th><th>message</th></tr>`)
  if (/<script/i.test(body)) problems.push(`${at}: a <script> tag went out unescaped`)
  const rows = [...squeezed.matchAll(/<tr><td>\s*([^<]*?)\s*<\/td><td>([^<]*)<\/td><\/tr>/g)].map(
    (m) => [Number(m[1]), decodeHtml(m[2] as string)] as const,
  )
  const expected = expectedFortunes()
  if (rows.length !== expected.length)
    problems.push(`${at}: ${rows.length} rows, expected ${expected.length}`)
  for (let i = 0; i < Math.min(rows.length, expected.length); i++) {
    const [id, message] = rows[i] as readonly [number, string]
    const [wantId, wantMessage] = expected[i] as readonly [number, string]
    if (id !== wantId || message !== wantMessage) {
      problems.push(
        `${at}: row ${i + 1} is (${id}, ${JSON.stringify(message)}), expected (${wantId}, ${JSON.stringify(wantMessage)})`,
      )
      break
    }
  }
}

/** Sends 16 plaintext requests at once on one socket; answers how many responses came back. */
function pipelined(base: string, depth = 16): Promise<number> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let data = ''
    const count = (): number => data.split('HTTP/1.1 200').length - 1
    const timer = setTimeout(() => {
      socket.destroy()
      resolve(count())
    }, 5_000)
    socket.setEncoding('latin1')
    socket.on('data', (chunk: string) => {
      data += chunk
      if (count() >= depth && data.endsWith('Hello, World!')) {
        clearTimeout(timer)
        socket.destroy()
        resolve(count())
      }
    })
    socket.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    socket.write(`GET /plaintext HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`.repeat(depth))
  })
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

/** The paths of the six tests as the benchmark loads them. */
export const TEST_PATHS = {
  json: '/json',
  plaintext: '/plaintext',
  db: '/db',
  queries: '/queries?queries=20',
  fortunes: '/fortunes',
  updates: '/updates?queries=20',
} as const

const KINDS: Record<keyof typeof TEST_PATHS, Kind> = {
  json: 'json',
  plaintext: 'plaintext',
  db: 'json',
  queries: 'json',
  fortunes: 'html',
  updates: 'json',
}

/**
 * Checks the server at `base` (`http://127.0.0.1:<port>`) against the rules of the six tests;
 * answers the problems found, `[]` when it passes. `readWorld` reads the database the server uses.
 */
export async function verifyTechEmpower(base: string, readWorld: ReadWorld): Promise<string[]> {
  const problems: string[] = []
  const tests = Object.entries(TEST_PATHS) as [keyof typeof TEST_PATHS, string][]

  // Headers of every test, and a Date that moves on with the clock.
  const first = await Promise.all(tests.map(([, path]) => get(base + path)))
  tests.forEach(([name], i) => checkHeaders(first[i] as Answer, KINDS[name], name, problems))
  await sleep(1_100 - (Date.now() % 1_000))
  const second = await Promise.all(tests.map(([, path]) => get(base + path)))
  tests.forEach(([name], i) => {
    const a = first[i]?.headers.date
    const b = second[i]?.headers.date
    if (a !== undefined && a === b)
      problems.push(`${name}: Date "${String(a)}" did not change a second later (cached)`)
  })

  const [json, plaintext, , , fortunes] = first as Answer[]
  const hello = parseJson(json as Answer, 'json', problems)
  if (JSON.stringify(hello) !== '{"message":"Hello, World!"}')
    problems.push(`json: body ${JSON.stringify(hello)}, expected {"message":"Hello, World!"}`)
  if ((plaintext as Answer).body.toString('utf8') !== 'Hello, World!')
    problems.push(`plaintext: body ${JSON.stringify((plaintext as Answer).body.toString('utf8'))}`)
  const answered = await pipelined(base)
  if (answered !== 16) problems.push(`plaintext: ${answered} of 16 pipelined requests answered`)
  checkFortunes(fortunes as Answer, 'fortunes', problems)

  // A request of its own: the batches above ran updates beside it, which may have changed the row.
  const world = parseJson(await get(`${base}/db`), 'db', problems)
  if (checkWorld(world, 'db', problems)) {
    const stored = (await readWorld([world.id])).get(world.id)
    if (stored !== world.randomNumber)
      problems.push(
        `db: row ${world.id} answered ${world.randomNumber}, the database holds ${stored}`,
      )
  }

  for (const path of ['/queries', '/updates']) {
    const name = path.slice(1)
    await Promise.all(
      QUERY_CASES.map(async ([q, expected]) => {
        const url = queriesUrl(base, path, q)
        const at = `${name} ${url.slice(base.length)}`
        const answer = await get(url)
        checkHeaders(answer, 'json', at, problems)
        checkWorlds(parseJson(answer, at, problems), expected, at, problems)
      }),
    )
  }

  // Updates persist: 500 rows, then the database must hold what the response said.
  const all = Array.from({ length: 10_000 }, (_, i) => i + 1)
  const before = await readWorld(all)
  const at = 'updates /updates?queries=500'
  const answer = await get(`${base}/updates?queries=500`)
  const updated = checkWorlds(parseJson(answer, at, problems), 500, at, problems)
  const answeredFor = new Map<number, number[]>()
  for (const w of updated) answeredFor.set(w.id, [...(answeredFor.get(w.id) ?? []), w.randomNumber])
  const after = await readWorld([...answeredFor.keys()])
  let changed = 0
  let wrong = 0
  for (const [id, numbers] of answeredFor) {
    const now = after.get(id)
    if (now === undefined || !numbers.includes(now)) wrong++
    if (now !== before.get(id)) changed++
  }
  if (wrong > 0)
    problems.push(`${at}: ${wrong} rows hold another number than the response gave for them`)
  if (answeredFor.size > 0 && changed < 0.9 * answeredFor.size)
    problems.push(`${at}: only ${changed} of ${answeredFor.size} rows changed in the database`)
  return problems
}
