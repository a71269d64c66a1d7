import { controller, get, view, type RequestContext } from 'fw'

/** The site's pages. */
@controller({ name: 'home.' })
export default class HomeController {
  /** The home page (`views/home.eta`), with the signed-in user's name. */
  @get('', { name: 'index' })
  async index(ctx: RequestContext) {
    const identity = await ctx.identity()
    return view('home', {
      title: 'Home',
      app: ctx.kernel.config.app.name,
      user: identity?.username,
    })
  }
}
