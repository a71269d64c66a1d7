import type { RequestContext } from 'fw'
import { PROFILE_COLUMNS, profileOf, query, queryOne, viewerId } from '../data.js'
import { failure } from '../errors.js'

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

/** Follows a user (`POST /api/profiles/{username}/follow`); following twice is following. */
export async function follow(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  const found = await profile(ctx, viewer)
  if (found.id === viewer) throw failure(422, 'you cannot follow yourself')
  await query(
    ctx,
    'insert into follows (follower_id, followed_id) values (?, ?) on conflict do nothing',
    [viewer, found.id],
  )
  return { profile: { ...found.profile, following: true } }
}

/** Unfollows a user (`DELETE /api/profiles/{username}/follow`). */
export async function unfollow(ctx: RequestContext) {
  const viewer = await viewerId(ctx)
  const found = await profile(ctx, viewer)
  await query(ctx, 'delete from follows where follower_id = ? and followed_id = ?', [
    viewer,
    found.id,
  ])
  return { profile: { ...found.profile, following: false } }
}
