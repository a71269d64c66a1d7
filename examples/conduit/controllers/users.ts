import { json, type RequestContext } from 'fw'
import { hashPassword, presentedToken, User, verifyPassword } from 'fw/plugins/auth'
import { uniqueViolation } from 'fw/plugins/database'
import { entityManager, query, queryOne, type Row } from '../data.js'
import { UserProfile } from '../entities.js'
import { failure } from '../errors.js'
import { EMAIL_UNIQUE } from '../migrations.js'

/** The signed-in user as RealWorld shows it: the account, its profile and a token. */
interface UserBody {
  user: { email: string; token: string; username: string; bio: string | null; image: string | null }
}

function userBody(row: Row, token: string): UserBody {
  return {
    user: {
      email: row.email as string,
      token,
      username: row.username as string,
      bio: (row.bio as string | null) ?? null,
      image: (row.image as string | null) ?? null,
    },
  }
}

const ACCOUNT_SQL = `select u.id, u.username, u.email, u.password_hash, p.bio, p.image
  from users u left join user_profiles p on p.user_id = u.id`

/** A 422 when another account already has this username or email (case-insensitively). */
async function refuseTaken(
  ctx: RequestContext,
  fields: { username?: string; email?: string },
  except = 0,
): Promise<void> {
  const taken = await query(
    ctx,
    `select lower(username) = lower(?) as username, lower(email) = lower(?) as email from users
      where (lower(username) = lower(?) or lower(email) = lower(?)) and id <> ?`,
    [fields.username ?? '', fields.email ?? '', fields.username ?? '', fields.email ?? '', except],
  )
  const messages: string[] = []
  if (taken.some((r) => r.username === true)) messages.push('username has already been taken')
  if (taken.some((r) => r.email === true)) messages.push('email has already been taken')
  if (messages.length > 0) throw failure(422, ...messages)
}

/**
 * The 422 for a duplicate the database refused: another request took the username or email
 * between {@link refuseTaken}'s check and this write. Any other error is rethrown.
 */
function takenFailure(error: unknown): never {
  const violation = uniqueViolation(error)
  if (violation === undefined) throw error
  throw failure(
    422,
    violation.constraint === EMAIL_UNIQUE
      ? 'email has already been taken'
      : 'username has already been taken',
  )
}

/** Registers a user (`POST /api/users`, 201): the account through the auth plugin, and a token. */
export async function register(ctx: RequestContext) {
  const { user } = await ctx.body<{ user: { username: string; email: string; password: string } }>()
  await refuseTaken(ctx, user)
  const auth = ctx.kernel.plugin('auth')
  const created = await auth
    .createUser({ username: user.username, email: user.email, password: user.password })
    .catch(takenFailure)
  const { token } = await auth.issueToken(created.id)
  return json(userBody({ ...created, bio: null, image: null }, token), 201)
}

let dummyHash: Promise<string> | undefined

/**
 * Signs in by email (`POST /api/users/login`). An unknown email costs the same scrypt work as a
 * wrong password, and both answer the same 401.
 */
export async function login(ctx: RequestContext) {
  const { user } = await ctx.body<{ user: { email: string; password: string } }>()
  const row = await queryOne(ctx, `${ACCOUNT_SQL} where lower(u.email) = lower(?)`, [user.email])
  const stored =
    (row?.password_hash as string | undefined) ?? (await (dummyHash ??= hashPassword('')))
  const ok = await verifyPassword(user.password, stored)
  if (row === undefined || !ok) throw failure(401, 'email or password is invalid')
  const { token } = await ctx.kernel.plugin('auth').issueToken(row.id as number)
  return userBody(row, token)
}

/** The signed-in user's id (the route's middleware made sure there is one). */
async function signedIn(ctx: RequestContext): Promise<number> {
  return Number((await ctx.identity())!.id)
}

/** The signed-in user (`GET /api/user`), with the token they presented. */
export async function current(ctx: RequestContext) {
  const row = await queryOne(ctx, `${ACCOUNT_SQL} where u.id = ?`, [await signedIn(ctx)])
  if (row === undefined) throw failure(401, 'unauthorized')
  return userBody(row, presentedToken(ctx)!.token)
}

/**
 * Updates the signed-in user (`PUT /api/user`): any of email, username, password (the auth
 * plugin's `User` entity), bio, image (the app's `UserProfile`, created on the first). One flush
 * writes the columns that changed, in one transaction; the answer is built from the entities.
 * A new password revokes every other token of the user: whoever held one signs in again; the
 * token of this request stays valid, and is the one answered.
 */
export async function update(ctx: RequestContext) {
  const identity = (await ctx.identity())!
  const id = Number(identity.id)
  const { user } = await ctx.body<{
    user: {
      email?: string
      username?: string
      password?: string
      bio?: string | null
      image?: string | null
    }
  }>()
  await refuseTaken(ctx, user, id)
  const em = entityManager(ctx)
  const account = await em.findOne(User, id)
  if (account === null) throw failure(401, 'unauthorized')
  let profile = await em.findOne(UserProfile, { user: id })
  if (user.email !== undefined) account.email = user.email
  if (user.username !== undefined) account.username = user.username
  if (user.password !== undefined) account.password_hash = await hashPassword(user.password)
  if (user.bio !== undefined || user.image !== undefined) {
    profile ??= em.create(UserProfile, { user: account })
    if (user.bio !== undefined) profile.bio = user.bio
    if (user.image !== undefined) profile.image = user.image
  }
  await em.flush().catch(takenFailure)
  if (user.password !== undefined)
    await ctx.kernel.plugin('auth').revokeUserTokens(id, identity.tokenId)
  const shown = {
    email: account.email,
    username: account.username,
    bio: profile?.bio ?? null,
    image: profile?.image ?? null,
  }
  return userBody(shown, presentedToken(ctx)!.token)
}
