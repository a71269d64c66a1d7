import { controller, get, type RequestContext } from 'fw'

/** The app's API. */
@controller({ prefix: 'api', name: 'api.' })
export default class StatusController {
  /** The app's name and how many accounts it holds: answers once the database is migrated. */
  @get('status', { name: 'status' })
  async status(ctx: RequestContext) {
    const [row] = await ctx.kernel.plugin('database').runStatement({
      sql: 'select count(*)::int as users from users',
      bindings: [],
    })
    return { app: ctx.kernel.config.app.name, users: Number(row?.users ?? 0) }
  }
}
