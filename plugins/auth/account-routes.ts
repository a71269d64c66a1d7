import { json, type Kernel, type Reply, type RequestContext } from 'fw'
import { presentedToken } from './presented-token.js'
import { codeLeg, field, passwordLeg, type LoginOutcome } from './login-flow.js'
import { closePendingLogin, openPendingLogin, pendingUserId } from './pending-logins.js'
import { recordSignedOut, recordTokenIssued } from './resolved.js'
import type { AuthRuntime } from './runtime.js'
import { issueAccessToken, revokeAccessToken } from './tokens.js'
import { publicUser } from './users.js'

function tokenUnavailable(): Reply {
  return json({ error: 'token_unavailable' }, 500)
}

function noStore(reply: Reply): Reply {
  return reply.header('cache-control', 'no-store')
}

/** The JSON answer of an outcome that is not a sign-in. */
export function refusal(
  outcome: Exclude<LoginOutcome, { kind: 'signed-in' }>,
  missing: string,
  invalid: string,
): Reply {
  switch (outcome.kind) {
    case 'missing':
      return json({ error: missing }, 400)
    case 'locked':
      return json({ error: 'too_many_attempts', retry_after: outcome.retryAfter }, 429).header(
        'retry-after',
        String(outcome.retryAfter),
      )
    case 'invalid':
      return json({ error: invalid }, 401)
    case 'second-factor':
      return json({ error: 'two_factor_required', methods: outcome.methods }, 401)
  }
}

async function signedIn(
  rt: AuthRuntime,
  ctx: RequestContext,
  outcome: Extract<LoginOutcome, { kind: 'signed-in' }>,
  action: string,
): Promise<Reply> {
  const issued = await issueAccessToken(rt, outcome.user)
  const { user } = outcome
  recordTokenIssued(ctx, user, issued, action)
  return json({
    status: 'success',
    access_token: issued.token,
    token_type: 'Bearer',
    user: publicUser(user),
  })
}

/** `POST /account/login`: the password leg (README.md "Flows"). */
async function login(rt: AuthRuntime, ctx: RequestContext): Promise<Reply> {
  if (rt.keys === undefined) return tokenUnavailable()
  const body = await ctx.body()
  const outcome = await passwordLeg(rt, field(body, 'username'), field(body, 'password'))
  if (outcome.kind === 'signed-in') return noStore(await signedIn(rt, ctx, outcome, 'login'))
  const reply = noStore(refusal(outcome, 'missing_credentials', 'invalid_credentials'))
  if (outcome.kind === 'second-factor')
    reply.appendHeader('set-cookie', await openPendingLogin(rt, ctx, outcome.user.id))
  return reply
}

/** `POST /account/login2fa`: the code leg; the code is read from the body only, never the query. */
async function login2fa(rt: AuthRuntime, ctx: RequestContext): Promise<Reply> {
  if (rt.keys === undefined) return tokenUnavailable()
  const code = field(await ctx.body(), 'code')
  const pending = code.trim() === '' ? undefined : await pendingUserId(rt, ctx)
  const outcome = await codeLeg(rt, pending, code)
  if (outcome.kind !== 'signed-in') return noStore(refusal(outcome, 'missing_code', 'invalid_code'))
  const reply = noStore(await signedIn(rt, ctx, outcome, 'login2fa'))
  return reply.appendHeader('set-cookie', await closePendingLogin(rt, ctx))
}

/** `POST /account/logout`: revokes the presented token, if any; always `{status: "ok"}`. */
async function logout(rt: AuthRuntime, ctx: RequestContext): Promise<Reply> {
  const presented = presentedToken(ctx)
  if (presented !== undefined) await revokeAccessToken(rt, presented.token)
  recordSignedOut(ctx, 'logout')
  return json({ status: 'ok' })
}

/**
 * Declares `/account/login`, `/account/login2fa` and `/account/logout`, POST only, as JSON
 * endpoints (`json: true`). Another method gets the kernel's own 405 with `Allow: POST`:
 * `{"error": "method_not_allowed", "allowed": ["POST"]}` unless the client ranks `text/html`
 * first (then a page); an unknown path under `/account` answers a JSON 404 the same way.
 */
export function declareAccountRoutes(kernel: Kernel, rt: AuthRuntime): void {
  kernel.router.group({ prefix: 'account', name: 'auth.', json: true }, (r) => {
    r.post('login', (ctx) => login(rt, ctx)).name('login')
    r.post('login2fa', (ctx) => login2fa(rt, ctx)).name('login2fa')
    r.post('logout', (ctx) => logout(rt, ctx)).name('logout')
  })
}
