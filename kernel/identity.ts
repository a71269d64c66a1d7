/**
 * Who made the request, as the `authenticate` hook found out. Plugins add fields by declaration
 * merging on this interface.
 */
export interface Identity {
  /** The user's id, or undefined for a non-user principal (an application). */
  id?: string | number
  username?: string
  usertype?: number
  /** How the identity was established: `apiKey`, `accessToken`, `userAuth`, `session`, … */
  via: string
}
