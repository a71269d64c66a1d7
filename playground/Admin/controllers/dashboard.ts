import { view, type RequestContext } from 'fw'

/**
 * The area's `dashboard` controller: `GET /admin` (the area's default controller) and
 * `/admin/dashboard`. The floor (`admin.min_usertype`, 50 in the playground) lets it open.
 */
export default class DashboardController {
  /** A page in the `admin` theme naming the signed-in user. */
  async index(_args: string[], ctx: RequestContext) {
    const who = await ctx.identity()
    return view('dashboard', {
      title: 'Dashboard',
      username: who?.username ?? '',
      usertype: who?.usertype ?? 0,
    })
  }
}
