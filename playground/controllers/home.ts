import { view, type Reply, type RequestContext } from 'fw'
import { DEMO_LINKS } from '../views/demo-links.js'

/** `GET /`: the home page (`views/home.eta`; `?theme=dark` picks the dark theme). */
export function home(ctx: RequestContext): Reply {
  if (ctx.query.theme === 'dark') ctx.state.theme = 'dark'
  return view('home', { app: ctx.kernel.config.app.name, links: DEMO_LINKS })
}
