import { definePlugin, type Kernel } from 'fw'
import * as articles from './controllers/articles.js'
import * as comments from './controllers/comments.js'
import * as profiles from './controllers/profiles.js'
import * as users from './controllers/users.js'
import { failure, tapErrorShape } from './errors.js'
import { normalizeNames } from './names.js'
import * as schemas from './schemas.js'

const res = schemas.responses

function declareRoutes(kernel: Kernel): void {
  // `articles/feed` is the feed's path alone; a control character is in no slug and no username.
  kernel.router.pattern('slug', articles.SLUG)
  kernel.router.pattern('username', profiles.USERNAME)
  kernel.router.group({ prefix: 'api', name: 'conduit.', json: true }, (r) => {
    r.post('users', users.register)
      .name('users.register')
      .middleware('conduit.names')
      .schema({ body: schemas.newUser, responses: res.registered })
    r.post('users/login', users.login)
      .name('users.login')
      .middleware('conduit.names', 'conduit.lockout')
      .schema({ body: schemas.loginUser, responses: res.signedIn })
    r.get('profiles/{username}', profiles.show)
      .name('profiles.show')
      .schema({ responses: res.profile })
    r.get('articles', articles.index)
      .name('articles.index')
      .schema({ query: schemas.listQuery, responses: res.articles })
    r.get('articles/{slug}', articles.show).name('articles.show').schema({ responses: res.article })
    r.get('articles/{slug}/comments', comments.index)
      .name('comments.index')
      .schema({ responses: res.comments })
    r.get('tags', articles.tags).name('tags').schema({ responses: res.tags })

    r.group({ middleware: ['conduit.signedIn'] }, (s) => {
      s.get('user', users.current).name('user.show').schema({ responses: res.currentUser })
      s.put('user', users.update)
        .name('user.update')
        .middleware('conduit.names')
        .schema({ body: schemas.updateUser, responses: res.updatedUser })
      s.post('profiles/{username}/follow', profiles.follow)
        .name('profiles.follow')
        .schema({ responses: res.follow })
      s.delete('profiles/{username}/follow', profiles.unfollow)
        .name('profiles.unfollow')
        .schema({ responses: res.unfollow })
      s.get('articles/feed', articles.feed)
        .name('articles.feed')
        .schema({ query: schemas.feedQuery, responses: res.feed })
      s.post('articles', articles.create)
        .name('articles.create')
        .schema({ body: schemas.newArticle, responses: res.created })
      s.put('articles/{slug}', articles.update)
        .name('articles.update')
        .schema({ body: schemas.updateArticle, responses: res.changed })
      s.delete('articles/{slug}', articles.destroy)
        .name('articles.destroy')
        .schema({ responses: res.deleted })
      s.post('articles/{slug}/favorite', articles.favorite)
        .name('articles.favorite')
        .schema({ responses: res.favorite })
      s.delete('articles/{slug}/favorite', articles.unfavorite)
        .name('articles.unfavorite')
        .schema({ responses: res.favorite })
      s.post('articles/{slug}/comments', comments.create)
        .name('comments.create')
        .schema({ body: schemas.newComment, responses: res.comment })
      s.delete('articles/{slug}/comments/{id}', comments.destroy)
        .name('comments.destroy')
        .where('id', /\d+/)
        .schema({ responses: res.deleted })
    })
  })
}

/**
 * The Conduit API under `/api`: its routes, the `conduit.signedIn`, `conduit.names` and
 * `conduit.lockout` middleware, its error shape.
 */
export default definePlugin({
  name: 'conduit',
  dependsOn: ['database', 'auth'],
  setup(kernel) {
    // A route that needs a signed-in user: 401 without a valid `Authorization: Token …`.
    kernel.middleware('conduit.signedIn', async (ctx, next) => {
      if ((await ctx.identity()) === undefined) throw failure(401, 'a valid token is required')
      return next()
    })
    // Usernames and emails as they are stored, before the body schema judges them (`names.ts`).
    kernel.middleware('conduit.names', normalizeNames)
    // Sign-in by email under the auth plugin's lockout: failures count per email, a locked one
    // answers 429 with Retry-After (and the API document says so).
    kernel.middleware(
      'conduit.lockout',
      kernel.plugin('auth').lockout({
        key: async (ctx) => {
          const body = await ctx.body<{ user?: { email?: unknown } } | null>()
          return typeof body?.user?.email === 'string' ? body.user.email : undefined
        },
      }),
    )
    tapErrorShape(kernel)
    declareRoutes(kernel)
  },
})
