// Cross-origin answers in development: a single-page app served from another origin (a Vite dev
// server) may import the toolbar's module and read the timings (README.md "What an annotated
// response carries").
import { crossOriginHeaders, type Reply, type RequestContext } from 'fw'

/** Which origins may read an app route's response; the api plugin narrows it to its list. */
export type OriginPolicy = (origin: string) => boolean

/**
 * Lets the request's origin time the reply, and read it: the toolbar's own files (`open`) for any
 * origin; an app route only for an origin the policy allows. A reply whose CORS something else
 * (the API's policy) already answered keeps that answer.
 */
export function allowOrigin(
  reply: Reply,
  ctx: RequestContext,
  open: boolean,
  policy: OriginPolicy,
): Reply {
  const headers = crossOriginHeaders(ctx.headers.origin)
  if (headers === undefined) return reply
  const origin = headers['access-control-allow-origin']!
  if (reply.getHeader('timing-allow-origin') === undefined)
    reply.header('timing-allow-origin', headers['timing-allow-origin']!)
  reply.vary('Origin')
  if (reply.getHeader('access-control-allow-origin') !== undefined) return reply
  if (open || policy(origin)) reply.header('access-control-allow-origin', origin)
  return reply
}
