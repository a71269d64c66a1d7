import { documentResponses, type Middleware } from 'fw'
import { apiError } from './envelope.js'

/**
 * A route guard for API routes: lets through a request the application's API key authenticated
 * (the `apiKey` middleware accepted a key), or one whose user has at least `usertype`; answers 403
 * `InsufficientUsertype` to a signed-in user below it and 401 `Unauthenticated` to a request with
 * neither. Register it under a name and put it after the API pipeline (a group's middleware runs
 * first), typically on the writes of a resource whose reads stay open to any caller.
 *
 * A key stands for its application, which is trusted as a whole: a token that comes along with
 * the key does not lower it (whoever holds the key could leave the token out).
 *
 * @example
 * kernel.middleware('editor', minUsertype(50))
 * r.resource('products', Products).only('store', 'update', 'destroy').middleware('editor')
 */
export function minUsertype(usertype: number): Middleware {
  return documentResponses(
    async function minUsertype(ctx, next) {
      if (ctx.state.api?.application !== undefined) return next()
      const who = await ctx.identity()
      if (who?.id === undefined) return apiError('Unauthenticated')
      if ((who.usertype ?? 0) < usertype) return apiError('InsufficientUsertype')
      return next()
    },
    {
      401: 'No API key and no signed-in user.',
      403: `The signed-in user's usertype is below ${usertype}.`,
    },
  )
}
