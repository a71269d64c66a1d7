import type { RequestContext } from 'fw'
import { entityManager, PROFILE_COLUMNS, profileOf, queryOne, viewerId } from '../data.js'
import { Follow } from '../entities.js'
import { failure } from '../errors.js'

/**
 * What a `{username}` of the routes takes: no control character (no username has one, see
 * `names.ts`), so such a request is a 404 before any query.
 */
export const USERNAME = /[^\p{C}]+/u

/** The profile of `username` as the viewer sees it, or a 404. */
async function profile(ctx: RequestContext, viewer: number) {
  const row = await queryOne(
    ctx,
    `select u.id, ${PROFILE_COLUMNS} from users u left join user_profiles p on p.user_id = u.id
      where lower(u.username) = lower(?)`,
    [viewer, ctx.params.username],
  )
  if (row === undefined) throw failure(404, 'profile not found')
  return { id: row.id as number, profile: profileOf(row) }
}

/** A profile (`GET /api/profiles/{username}`); `following` is false for a guest. */
export async function show(ctx: RequestContext) {
  return { profile: (await profile(ctx, await viewerId(ctx))).profile }
}

/**
 * Follows a user (`POST /api/profiles/{username}/follow`); following twice is following: `upsert`
 * of the (follower, followed) pair is one `insert … on conflict do nothing`.
 */
export async function follow(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  const found = await profile(ctx, viewer)
  if (found.id === viewer) throw failure(422, 'you cannot follow yourself')
  await entityManager(ctx).upsert(Follow, { follower: viewer, followed: found.id })
  return { profile: { ...found.profile, following: true } }
}

/** Unfollows a user (`DELETE /api/profiles/{username}/follow`): one `delete`. */
export async function unfollow(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  const found = await profile(ctx, viewer)
  await entityManager(ctx).nativeDelete(Follow, { follower: viewer, followed: found.id })
  return { profile: { ...found.profile, following: false } }
}
