import { view, type RequestContext } from 'fw'
import { requireUsertype } from 'fw/plugins/admin'

/**
 * The area's `users` controller: `GET /admin/users`. Its action checks usertype ≥ 90 itself (spec
 * rule 6: the area's floor of 50 lets an editor in, and never replaces a screen's own check).
 */
export default class UsersController {
  /** An HTML table of the users: username, email, usertype. */
  async index(_args: string[], ctx: RequestContext) {
    await requireUsertype(90, ctx)
    const users = await ctx.kernel.plugin('database').runStatement({
      sql: 'select username, email, usertype from users order by id',
      bindings: [],
    })
    return view('users', { title: 'Users', users })
  }
}
