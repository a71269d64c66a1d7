// Lighthouse's four categories (performance, accessibility, best practices, SEO) on the
// playground's pages in production: `/`, `/login` and `/products` as a guest, `/health` signed in
// as the demo admin (a guest is sent to the sign-in page). The playground runs under `fw serve` on
// an embedded in-memory database with a fresh application key; Lighthouse runs through npx (it is
// fetched on the first run, not a dependency of fw) with Debian's Chromium, never a downloaded
// browser. Target: 100 in every category of every page. Performance is the one figure a loaded
// machine moves: the run prints the load average beside it.
//
//   node --import tsx -C fw-source bench/lighthouse.ts [--version 13.5.0]
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { loadavg } from 'node:os'
import { promisify } from 'node:util'
import { startFw } from './lib/playground-child.js'

const run = promisify(execFile)
const args = process.argv.slice(2)
const versionAt = args.indexOf('--version')
const VERSION = versionAt === -1 ? '13.5.0' : args[versionAt + 1]!
const CHROME = process.env.CHROME_PATH ?? '/usr/bin/chromium'
const PAGES: readonly { path: string; signedIn: boolean }[] = [
  { path: '/', signedIn: false },
  { path: '/login', signedIn: false },
  { path: '/products', signedIn: false },
  { path: '/health', signedIn: true },
]

interface Report {
  categories: Record<string, { id: string; score: number | null }>
  audits: Record<
    string,
    { id: string; score: number | null; scoreDisplayMode: string; displayValue?: string }
  >
}

/** The cookies a response sets, as one `Cookie` header value (name=value pairs). */
function cookiesOf(response: Response): string[] {
  return response.headers.getSetCookie().map((c) => c.split(';')[0]!)
}

/** Signs the demo admin in through the sign-in form, as a browser does; answers its cookies. */
async function signIn(url: string): Promise<string> {
  const form = await fetch(`${url}/login`)
  const jar = cookiesOf(form)
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())?.[1]
  if (csrf === undefined) throw new Error('no CSRF field on /login')
  const body = new URLSearchParams({
    _csrf: csrf,
    return: '/health',
    username: 'admin',
    password: 'admin-pass',
  })
  const posted = await fetch(`${url}/login`, {
    method: 'POST',
    body,
    headers: { cookie: jar.join('; ') },
    redirect: 'manual',
  })
  if (posted.status !== 303) throw new Error(`sign-in answered ${posted.status}`)
  return [...jar, ...cookiesOf(posted)].join('; ')
}

async function lighthouse(url: string, cookie: string | undefined): Promise<Report> {
  const { stdout } = await run(
    'npx',
    [
      '--yes',
      `lighthouse@${VERSION}`,
      url,
      '--quiet',
      '--output=json',
      '--output-path=stdout',
      '--chrome-flags=--headless=new --no-sandbox',
      ...(cookie === undefined ? [] : [`--extra-headers=${JSON.stringify({ cookie })}`]),
    ],
    { env: { ...process.env, CHROME_PATH: CHROME }, maxBuffer: 64 * 1024 * 1024, timeout: 180_000 },
  )
  return JSON.parse(stdout) as Report
}

const child = startFw({
  name: 'lighthouse',
  env: {
    NODE_ENV: 'production',
    DATABASE_URL: 'pglite://memory',
    FW_APP_KEY: randomBytes(32).toString('base64url'),
  },
})
try {
  const { url } = await child.listening(120_000)
  const cookie = await signIn(url)
  console.log(`lighthouse ${VERSION} on ${url}, Chromium ${CHROME}`)
  let lowest = { score: 101, where: '' }
  for (const page of PAGES) {
    const report = await lighthouse(`${url}${page.path}`, page.signedIn ? cookie : undefined)
    const scores = Object.values(report.categories).map((c) => {
      const score = Math.round((c.score ?? 0) * 100)
      if (score < lowest.score) lowest = { score, where: `${page.path} ${c.id}` }
      return `${c.id} ${score}`
    })
    const load = loadavg()[0]!.toFixed(1)
    console.log(`${page.path.padEnd(10)} ${scores.join(', ')} (load ${load})`)
    for (const audit of Object.values(report.audits)) {
      const scored = audit.scoreDisplayMode === 'binary' || audit.scoreDisplayMode === 'numeric'
      if (scored && audit.score !== null && audit.score < 1)
        console.log(`  ${audit.id}: ${audit.score} ${audit.displayValue ?? ''}`)
    }
  }
  console.log(`lighthouse min ${lowest.score} (${lowest.where}); target 100`)
} finally {
  await child.stop()
}
