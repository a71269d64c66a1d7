import { createHmac, randomBytes } from 'node:crypto'
import { serialize } from 'cookie'
import { redirect, view, type Kernel, type Reply, type RequestContext } from 'fw'
import { codeLeg, field, passwordLeg, type LoginOutcome } from './login-flow.js'
import { closePendingLogin, openPendingLogin, pendingUserId } from './pending-logins.js'
import { safeReturnPath } from './return-path.js'
import { recordResolved, recordSignedOut } from './resolved.js'
import type { AuthRuntime } from './runtime.js'
import {
  closeWebSession,
  csrfTokenOf,
  openWebSession,
  readWebSession,
  sameString,
  SESSION_COOKIE,
} from './sessions.js'

/** The cookie behind the sign-in form's CSRF token (the visitor has no session yet). */
const FORM_COOKIE = 'fw_login_csrf'

/** The form's token: HMAC of the form cookie, so a cookie planted by a sibling site is not enough. */
function formToken(rt: AuthRuntime, cookieValue: string): string | undefined {
  if (rt.keys === undefined) return undefined
  return createHmac('sha256', rt.keys.csrf).update(`login-form:${cookieValue}`).digest('base64url')
}

const MESSAGES: Record<Exclude<LoginOutcome['kind'], 'signed-in' | 'second-factor'>, string> = {
  missing: 'Enter your username and password.',
  invalid: 'Those credentials are not right.',
  locked: 'Too many attempts. Wait a moment, then try again.',
}

interface PageState {
  step: 'password' | 'code'
  error?: string
  status?: number
  methods?: string[]
}

/** The page without an application key (production with no `FW_APP_KEY`): nothing can be signed. */
const UNAVAILABLE: PageState = { step: 'password', error: 'Sign-in is unavailable.', status: 500 }

async function page(
  rt: AuthRuntime,
  ctx: RequestContext,
  template: string,
  state: PageState,
): Promise<Reply> {
  let cookieValue = ctx.cookies[FORM_COOKIE]
  const fresh = cookieValue === undefined || !/^[A-Za-z0-9_-]{43}$/.test(cookieValue)
  if (fresh) cookieValue = randomBytes(32).toString('base64url')
  const identity = ctx.method === 'GET' ? await ctx.identity() : undefined
  const reply = view(
    template,
    {
      title: 'Sign in',
      step: state.step,
      error: state.error,
      methods: state.methods ?? ['totp'],
      csrf: formToken(rt, cookieValue!) ?? '',
      returnTo:
        safeReturnPath(ctx.query.return) ??
        safeReturnPath(field(await bodyOf(ctx), 'return')) ??
        '',
      user: identity?.via === 'session' ? { username: identity.username } : undefined,
    },
    state.status ?? 200,
  ).header('cache-control', 'no-store, private')
  if (fresh)
    reply.appendHeader(
      'set-cookie',
      serialize(FORM_COOKIE, cookieValue!, {
        httpOnly: true,
        sameSite: 'lax',
        secure: ctx.secure,
        path: '/',
      }),
    )
  return reply
}

async function bodyOf(ctx: RequestContext): Promise<unknown> {
  return ctx.method === 'POST' ? ctx.body() : {}
}

function formTokenOk(rt: AuthRuntime, ctx: RequestContext, offered: string): boolean {
  const cookieValue = ctx.cookies[FORM_COOKIE]
  if (cookieValue === undefined || offered === '') return false
  const expected = formToken(rt, cookieValue)
  return expected !== undefined && sameString(offered, expected)
}

/** `POST /login`: either leg of a web sign-in; on success a web session and a 303 to `return`. */
async function submit(rt: AuthRuntime, ctx: RequestContext, template: string): Promise<Reply> {
  // Without a key the form carries no token: say so rather than that the form expired.
  if (rt.keys === undefined) return page(rt, ctx, template, UNAVAILABLE)
  const body = await ctx.body()
  if (!formTokenOk(rt, ctx, field(body, '_csrf')))
    return page(rt, ctx, template, {
      step: 'password',
      error: 'The form expired. Try again.',
      status: 403,
    })
  const codeStep = field(body, 'step') === 'code'
  const outcome = codeStep
    ? await codeLeg(rt, await pendingUserId(rt, ctx), field(body, 'code'))
    : await passwordLeg(rt, field(body, 'username'), field(body, 'password'))
  switch (outcome.kind) {
    case 'signed-in': {
      const session = await openWebSession(rt, ctx, outcome.user)
      const { user } = outcome
      recordResolved(ctx, user, {
        credential: 'session',
        source: null,
        expires: session.expires,
        action: 'web-login',
      })
      const reply = redirect(safeReturnPath(field(body, 'return')) ?? '/', 303)
      reply.appendHeader('set-cookie', session.cookie)
      if (codeStep) reply.appendHeader('set-cookie', await closePendingLogin(rt, ctx))
      return reply
    }
    case 'second-factor': {
      const reply = await page(rt, ctx, template, { step: 'code', methods: outcome.methods })
      return reply.appendHeader('set-cookie', await openPendingLogin(rt, ctx, outcome.user.id))
    }
    case 'locked': {
      const reply = await page(rt, ctx, template, {
        step: codeStep ? 'code' : 'password',
        error: MESSAGES.locked,
        status: 429,
      })
      return reply.header('retry-after', String(outcome.retryAfter))
    }
    default:
      return page(rt, ctx, template, {
        step: codeStep ? 'code' : 'password',
        error: codeStep ? 'That code is not right.' : MESSAGES[outcome.kind],
        status: outcome.kind === 'missing' ? 400 : 401,
      })
  }
}

/** `POST /logout`: ends the web session; needs the session's CSRF token (header or `_csrf` field). */
async function signOut(rt: AuthRuntime, ctx: RequestContext, template: string): Promise<Reply> {
  const value = ctx.cookies[SESSION_COOKIE]
  const found = value === undefined ? undefined : await readWebSession(rt, value)
  if (found?.ok) {
    const expected = csrfTokenOf(rt, String(found.identity.tokenId))
    const offered = ctx.header('x-csrf-token') ?? field(await ctx.body(), '_csrf')
    if (expected === undefined || !sameString(offered, expected))
      return page(rt, ctx, template, {
        step: 'password',
        error: 'The form expired. Try again.',
        status: 403,
      })
  }
  recordSignedOut(ctx, 'web-logout')
  return redirect('/login', 303).appendHeader(
    'set-cookie',
    await closeWebSession(rt, ctx, found?.ok ? value : undefined),
  )
}

const HEAD_END = /<\/head>/i

/**
 * Puts `<meta name="csrf">` and the `pfApiHeaders(extra)` helper into every HTML page of a
 * signed-in web session (render stage 50, after the views at -10): a page script then calls the
 * API with `fetch(url, { headers: pfApiHeaders({ accept: 'application/json' }) })`.
 */
function tapCsrfMeta(kernel: Kernel, rt: AuthRuntime): void {
  // A synchronous tap: most replies (no HTML, or no session cookie) pass through with no promise.
  kernel.hooks.render.tap({ name: 'auth.csrf-meta', stage: 50 }, (reply, ctx) =>
    reply.body.kind !== 'html' || ctx.cookies[SESSION_COOKIE] === undefined
      ? reply
      : withCsrfMeta(rt, reply, ctx),
  )
}

async function withCsrfMeta(rt: AuthRuntime, reply: Reply, ctx: RequestContext): Promise<Reply> {
  const identity = await ctx.identity()
  if (reply.body.kind !== 'html') return reply
  if (identity?.via !== 'session' || identity.tokenId === undefined) return reply
  const token = csrfTokenOf(rt, identity.tokenId)
  const match = HEAD_END.exec(reply.body.value)
  if (token === undefined || match === null) return reply
  const at = match.index
  const inject =
    `<meta name="csrf" content="${token}">\n` +
    `<script>function pfApiHeaders(extra){var m=document.querySelector('meta[name="csrf"]');` +
    `var h={};if(m)h['X-CSRF-Token']=m.getAttribute('content');` +
    `if(extra)for(var k in extra)h[k]=extra[k];return h}</script>\n`
  reply.body = {
    kind: 'html',
    value: reply.body.value.slice(0, at) + inject + reply.body.value.slice(at),
  }
  return reply.header('cache-control', 'no-store, private')
}

/**
 * Declares `GET /login`, `POST /login` (behind the `loginMiddleware` option's middleware) and
 * `POST /logout`, and the CSRF meta tag of signed-in pages.
 */
export function declareWebLogin(
  kernel: Kernel,
  rt: AuthRuntime,
  options: { view: string; middleware: readonly string[] },
): void {
  kernel.router
    .get('login', async (ctx) => {
      if (rt.keys === undefined) return page(rt, ctx, options.view, UNAVAILABLE)
      const pending =
        ctx.cookies['fw_2fa'] !== undefined && (await pendingUserId(rt, ctx)) !== undefined
      return page(rt, ctx, options.view, { step: pending ? 'code' : 'password' })
    })
    .name('auth.web.login')
  kernel.router
    .post('login', (ctx) => submit(rt, ctx, options.view))
    .middleware(...options.middleware)
    .name('auth.web.submit')
  kernel.router.post('logout', (ctx) => signOut(rt, ctx, options.view)).name('auth.web.logout')
  tapCsrfMeta(kernel, rt)
}
