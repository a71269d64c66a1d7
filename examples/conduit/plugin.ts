import { definePlugin, type Kernel } from 'fw'
import type {} from 'fw/plugins/auth'
import * as articles from './controllers/articles.js'
import * as comments from './controllers/comments.js'
import * as profiles from './controllers/profiles.js'
import * as users from './controllers/users.js'
import { failure, tapErrorShape } from './errors.js'
import * as schemas from './schemas.js'

function declareRoutes(kernel: Kernel): void {
  kernel.router.group({ prefix: 'api', name: 'conduit.', json: true }, (r) => {
    r.post('users', users.register).name('users.register').schema({ body: schemas.newUser })
    r.post('users/login', users.login).name('users.login').schema({ body: schemas.loginUser })
    r.get('profiles/{username}', profiles.show).name('profiles.show')
    r.get('articles', articles.index).name('articles.index')
    r.get('articles/{slug}', articles.show).name('articles.show')
    r.get('articles/{slug}/comments', comments.index).name('comments.index')
    r.get('tags', articles.tags).name('tags')

    r.group({ middleware: ['conduit.signedIn'] }, (s) => {
      s.get('user', users.current).name('user.show')
      s.put('user', users.update).name('user.update').schema({ body: schemas.updateUser })
      s.post('profiles/{username}/follow', profiles.follow).name('profiles.follow')
      s.delete('profiles/{username}/follow', profiles.unfollow).name('profiles.unfollow')
      s.get('articles/feed', articles.feed).name('articles.feed')
      s.post('articles', articles.create)
        .name('articles.create')
        .schema({ body: schemas.newArticle })
      s.put('articles/{slug}', articles.update)
        .name('articles.update')
        .schema({ body: schemas.updateArticle })
      s.delete('articles/{slug}', articles.destroy).name('articles.destroy')
      s.post('articles/{slug}/favorite', articles.favorite).name('articles.favorite')
      s.delete('articles/{slug}/favorite', articles.unfavorite).name('articles.unfavorite')
      s.post('articles/{slug}/comments', comments.create)
        .name('comments.create')
        .schema({ body: schemas.newComment })
      s.delete('articles/{slug}/comments/{id}', comments.destroy)
        .name('comments.destroy')
        .where('id', /\d{1,9}/)
    })
  })
}

/** The Conduit API under `/api`: its routes, the `conduit.signedIn` middleware, its error shape. */
export default definePlugin({
  name: 'conduit',
  dependsOn: ['database', 'auth'],
  setup(kernel) {
    // A route that needs a signed-in user: 401 without a valid `Authorization: Token …`.
    kernel.middleware('conduit.signedIn', async (ctx, next) => {
      if ((await ctx.identity()) === undefined) throw failure(401, 'a valid token is required')
      return next()
    })
    tapErrorShape(kernel)
    declareRoutes(kernel)
  },
})
