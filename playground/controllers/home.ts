import { html, type Reply, type RequestContext } from 'fw'
import { homePage } from '../views/home.js'

/** `GET /`: the home page. */
export function home(ctx: RequestContext): Reply {
  return html(homePage(ctx.kernel.config.app.name))
}
