import { FwError } from '../errors.js'

/** The stable codes a {@link RouterError} carries; each names what went wrong in a declaration. */
export type RouterErrorCode =
  | 'FW_ERR_ROUTER_UNKNOWN_METHOD'
  | 'FW_ERR_ROUTER_INVALID_PATH'
  | 'FW_ERR_ROUTER_INVALID_PATTERN'
  | 'FW_ERR_ROUTER_UNKNOWN_PARAM'
  | 'FW_ERR_ROUTER_DUPLICATE_NAME'
  | 'FW_ERR_ROUTER_DUPLICATE_ROUTE'
  | 'FW_ERR_ROUTER_UNKNOWN_NAME'
  | 'FW_ERR_ROUTER_MISSING_PARAM'
  | 'FW_ERR_ROUTER_MISSING_ACTION'
  | 'FW_ERR_ROUTER_UNKNOWN_ACTION'
  | 'FW_ERR_ROUTER_INVALID_DECORATOR'
  | 'FW_ERR_ROUTER_NO_ROUTES'

/**
 * A mistake in route declarations or a URL request the router cannot satisfy. Matching a request
 * never throws one: a path that matches nothing is simply not found.
 *
 * @example
 * try { router.url('users.show') } catch (e) { if (e instanceof RouterError) console.log(e.code) }
 */
export class RouterError extends FwError {
  declare readonly code: RouterErrorCode

  constructor(code: RouterErrorCode, message: string) {
    super(code, message)
    this.name = 'RouterError'
  }
}
