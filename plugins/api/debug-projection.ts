// The api plugin's part of the debug payload's `auth` key: the application whose API key the request
// carried, by name, never the key (plugins/debug/README.md "The payload").
import type { ProjectionInput } from 'fw/plugins/debug'

/**
 * Adds the application to what the auth plugin reported; the API key is `what` authenticated the
 * request unless a user's credential did too.
 */
export function apiKeyProjection(i: ProjectionInput, previous: unknown): unknown {
  const key = i.of('api.key.accepted').at(-1)
  if (key === undefined) return previous
  const application = key.data.application
  if (previous === null || typeof previous !== 'object')
    return { what: 'apiKey', application, user: null }
  const auth = previous as Record<string, unknown>
  return { ...auth, what: auth.user === null ? 'apiKey' : auth.what, application }
}
