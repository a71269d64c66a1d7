// The Conduit example from RealWorld's specification, over HTTP (`kernel.inject`): every endpoint,
// who may change what (403), and the error shapes.
import * as assert from 'uvu/assert'
import { postRaw } from '../fixtures/post-raw.js'
import { call, conduitSuite, errorsOf, register, signUp, write } from './conduit-fixtures.js'

const test = conduitSuite('conduit example')

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/

test('POST /users registers (201) and the token signs in as Token <jwt>, not Bearer', async ({
  app,
}) => {
  const res = await signUp(app.kernel, 'cy', 'cy@conduit.test', 'cy-pass')
  assert.is(res.status, 201)
  const { user } = res.json<{ user: Record<string, unknown> }>()
  assert.equal(Object.keys(user).sort(), ['bio', 'email', 'image', 'token', 'username'])
  assert.equal(
    [user.username, user.email, user.bio, user.image],
    ['cy', 'cy@conduit.test', null, null],
  )
  const me = await call(app.kernel, 'GET', '/user', { token: user.token as string })
  assert.is(me.status, 200)
  assert.is(me.json<{ user: { username: string; token: string } }>().user.token, user.token)
  const bearer = await app.kernel.inject({
    url: '/api/user',
    headers: { authorization: `Bearer ${user.token as string}` },
  })
  assert.is(bearer.status, 401)
  assert.equal(errorsOf(bearer), ['a valid token is required'])
})

test('POST /users refuses a taken username or email and a bad body with 422 {errors: {body}}', async ({
  app,
}) => {
  const taken = await signUp(app.kernel, 'ANN', 'Bob@conduit.test', 'x')
  assert.is(taken.status, 422)
  assert.equal(errorsOf(taken), ['username has already been taken', 'email has already been taken'])
  const bad = await signUp(app.kernel, '', 'not-an-email')
  assert.is(bad.status, 422)
  assert.equal(Object.keys(bad.json()), ['errors'])
  const messages = errorsOf(bad)
  assert.ok(
    messages.some((m) => m.includes('user.password') && m.includes('required')),
    messages.join(),
  )
  assert.ok(
    messages.some((m) => m.includes('user.username')),
    messages.join(),
  )
  assert.ok(
    messages.some((m) => m.includes('user.email')),
    messages.join(),
  )
  assert.is(errorsOf(await call(app.kernel, 'POST', '/users', { body: {} })).length, 1)
  const malformed = await postRaw(app.kernel, '/api/users', 'application/json', '{"user":')
  assert.is(malformed.status, 400)
  assert.is(errorsOf(malformed).length, 1)
})

test('POST /users/login signs in by email; a wrong password and an unknown email answer the same 401', async ({
  app,
}) => {
  const ok = await call(app.kernel, 'POST', '/users/login', {
    body: { user: { email: 'ANN@conduit.test', password: 'ann-pass' } },
  })
  assert.is(ok.status, 200)
  const { user } = ok.json<{ user: { username: string; token: string } }>()
  assert.is(user.username, 'ann')
  assert.is((await call(app.kernel, 'GET', '/user', { token: user.token })).status, 200)
  const wrong = await call(app.kernel, 'POST', '/users/login', {
    body: { user: { email: 'ann@conduit.test', password: 'nope' } },
  })
  const unknown = await call(app.kernel, 'POST', '/users/login', {
    body: { user: { email: 'who@conduit.test', password: 'nope' } },
  })
  assert.is(wrong.status, 401)
  assert.equal([unknown.status, unknown.body], [401, wrong.body])
  assert.equal(errorsOf(wrong), ['email or password is invalid'])
  const empty = await call(app.kernel, 'POST', '/users/login', { body: { user: { email: 'a' } } })
  assert.is(empty.status, 422)
})

test('POST /users/login: from the third wrong password for an email, 429 with Retry-After', async ({
  app,
}) => {
  await register(app.kernel, 'eve')
  const signIn = (password: string) =>
    call(app.kernel, 'POST', '/users/login', {
      body: { user: { email: 'Eve@conduit.test', password } },
    })
  for (let i = 0; i < 3; i++) assert.is((await signIn('nope')).status, 401)
  const locked = await signIn('eve-pass')
  assert.is(locked.status, 429)
  // The lock is 60 s from the third failure; what is left of it when asked depends on the machine.
  const retryAfter = Number(locked.headers['retry-after'])
  assert.ok(Number.isInteger(retryAfter) && retryAfter > 0 && retryAfter <= 60, String(retryAfter))
  assert.equal(errorsOf(locked), [`Too many failed sign-ins: try again in ${retryAfter} s.`])
  assert.is(
    (
      await call(app.kernel, 'POST', '/users/login', {
        body: { user: { email: 'ann@conduit.test', password: 'ann-pass' } },
      })
    ).status,
    200,
    'another email is not locked',
  )
})

test('GET and PUT /user: 401 without a token; bio, image, email and password change', async ({
  app,
}) => {
  const token = await register(app.kernel, 'dee')
  for (const method of ['GET', 'PUT']) {
    const res = await call(app.kernel, method, '/user', { body: { user: {} } })
    assert.is(res.status, 401, method)
    assert.equal(errorsOf(res), ['a valid token is required'])
  }
  assert.is((await call(app.kernel, 'GET', '/user', { token: 'x.y.z' })).status, 401)
  const res = await call(app.kernel, 'PUT', '/user', {
    token,
    body: {
      user: {
        bio: 'I write.',
        image: 'https://img.test/d.png',
        email: 'dee2@conduit.test',
        password: 'new-pass',
      },
    },
  })
  assert.is(res.status, 200)
  assert.equal(res.json<{ user: object }>().user, {
    email: 'dee2@conduit.test',
    token,
    username: 'dee',
    bio: 'I write.',
    image: 'https://img.test/d.png',
  })
  const bioOnly = await call(app.kernel, 'PUT', '/user', {
    token,
    body: { user: { bio: 'Less.' } },
  })
  assert.equal(
    [
      bioOnly.json<{ user: { bio: string; image: string } }>().user.bio,
      bioOnly.json<{ user: { image: string } }>().user.image,
    ],
    ['Less.', 'https://img.test/d.png'],
  )
  const login = await call(app.kernel, 'POST', '/users/login', {
    body: { user: { email: 'dee2@conduit.test', password: 'new-pass' } },
  })
  assert.is(login.status, 200)
  const taken = await call(app.kernel, 'PUT', '/user', {
    token,
    body: { user: { username: 'ann' } },
  })
  assert.is(taken.status, 422)
  assert.equal(errorsOf(taken), ['username has already been taken'])
})

test('profiles: show (guest and signed in), follow, unfollow, 404 and 401', async ({
  app,
  ann,
  bob,
}) => {
  const show = async (token?: string) =>
    (await call(app.kernel, 'GET', '/profiles/ann', { token })).json<{ profile: object }>().profile
  assert.equal(await show(), { username: 'ann', bio: null, image: null, following: false })
  const followed = await call(app.kernel, 'POST', '/profiles/ann/follow', { token: bob })
  assert.is(followed.status, 200)
  assert.equal(followed.json(), {
    profile: { username: 'ann', bio: null, image: null, following: true },
  })
  assert.is((await call(app.kernel, 'POST', '/profiles/ann/follow', { token: bob })).status, 200)
  assert.equal((await show(bob)) as { following: boolean }, {
    username: 'ann',
    bio: null,
    image: null,
    following: true,
  })
  assert.is(((await show(ann)) as { following: boolean }).following, false)
  const unfollowed = await call(app.kernel, 'DELETE', '/profiles/ann/follow', { token: bob })
  assert.is(unfollowed.json<{ profile: { following: boolean } }>().profile.following, false)
  assert.is(((await show(bob)) as { following: boolean }).following, false)
  const missing = await call(app.kernel, 'GET', '/profiles/nobody')
  assert.is(missing.status, 404)
  assert.equal(errorsOf(missing), ['profile not found'])
  assert.is((await call(app.kernel, 'POST', '/profiles/ann/follow')).status, 401)
  assert.is((await call(app.kernel, 'POST', '/profiles/nobody/follow', { token: bob })).status, 404)
})

test('articles: create (201), read by slug, update and delete by the author only (403)', async ({
  app,
  ann,
  bob,
}) => {
  const created = await call(app.kernel, 'POST', '/articles', {
    token: ann,
    body: {
      article: {
        title: 'How to Train Your Dragon',
        description: 'Ever wonder how?',
        body: 'Very carefully.',
        tagList: ['training', 'dragons', 'dragons', ' '],
      },
    },
  })
  assert.is(created.status, 201)
  const { article } = created.json<{ article: Record<string, unknown> }>()
  assert.match(article.slug as string, /^how-to-train-your-dragon-[0-9a-f]{6}$/)
  assert.equal(
    { ...article, slug: '', createdAt: '', updatedAt: '' },
    {
      slug: '',
      title: 'How to Train Your Dragon',
      description: 'Ever wonder how?',
      body: 'Very carefully.',
      tagList: ['dragons', 'training'],
      createdAt: '',
      updatedAt: '',
      favorited: false,
      favoritesCount: 0,
      author: { username: 'ann', bio: null, image: null, following: false },
    },
  )
  assert.match(article.createdAt as string, ISO)
  const slug = article.slug as string
  const read = await call(app.kernel, 'GET', `/articles/${slug}`)
  assert.equal(read.json(), { article })

  const missing = await call(app.kernel, 'POST', '/articles', {
    token: ann,
    body: { article: { title: 'x' } },
  })
  assert.is(missing.status, 422)
  assert.is(errorsOf(missing).length, 2)
  assert.is((await call(app.kernel, 'POST', '/articles', { body: { article } })).status, 401)

  const foreign = await call(app.kernel, 'PUT', `/articles/${slug}`, {
    token: bob,
    body: { article: { body: 'Mine now.' } },
  })
  assert.is(foreign.status, 403)
  assert.equal(errorsOf(foreign), ['only its author may change this article'])
  const updated = await call(app.kernel, 'PUT', `/articles/${slug}`, {
    token: ann,
    body: { article: { title: 'Dragons, Trained', body: 'With two hands' } },
  })
  assert.is(updated.status, 200)
  const after = updated.json<{
    article: { slug: string; body: string; title: string; description: string }
  }>().article
  assert.match(after.slug, /^dragons-trained-[0-9a-f]{6}$/)
  assert.equal(
    [after.title, after.body, after.description],
    ['Dragons, Trained', 'With two hands', 'Ever wonder how?'],
  )
  assert.is((await call(app.kernel, 'GET', `/articles/${slug}`)).status, 404)

  const notYours = await call(app.kernel, 'DELETE', `/articles/${after.slug}`, { token: bob })
  assert.is(notYours.status, 403)
  const deleted = await call(app.kernel, 'DELETE', `/articles/${after.slug}`, { token: ann })
  assert.equal([deleted.status, deleted.body], [204, ''])
  const gone = await call(app.kernel, 'GET', `/articles/${after.slug}`)
  assert.is(gone.status, 404)
  assert.equal(errorsOf(gone), ['article not found'])
  assert.is(
    (await call(app.kernel, 'DELETE', `/articles/${after.slug}`, { token: ann })).status,
    404,
  )
})

test('favorites: favorite twice is once, counts every user, unfavorite', async ({
  app,
  ann,
  bob,
}) => {
  const slug = await write(app.kernel, ann, { title: 'Liked' })
  const fav = async (method: string, token: string) =>
    (await call(app.kernel, method, `/articles/${slug}/favorite`, { token })).json<{
      article: { favorited: boolean; favoritesCount: number }
    }>().article
  assert.equal(await fav('POST', bob).then((a) => [a.favorited, a.favoritesCount]), [true, 1])
  assert.equal(await fav('POST', bob).then((a) => [a.favorited, a.favoritesCount]), [true, 1])
  assert.equal(await fav('POST', ann).then((a) => [a.favorited, a.favoritesCount]), [true, 2])
  assert.equal(await fav('DELETE', bob).then((a) => [a.favorited, a.favoritesCount]), [false, 1])
  const guest = await call(app.kernel, 'GET', `/articles/${slug}`)
  assert.equal(
    guest.json<{ article: { favorited: boolean; favoritesCount: number } }>().article
      .favoritesCount,
    1,
  )
  assert.is((await call(app.kernel, 'POST', `/articles/${slug}/favorite`)).status, 401)
  assert.is(
    (await call(app.kernel, 'POST', '/articles/nothing-here/favorite', { token: bob })).status,
    404,
  )
})

test('comments: add, list (guest and signed in), delete by the author only (403)', async ({
  app,
  ann,
  bob,
}) => {
  const slug = await write(app.kernel, ann, { title: 'Discussed' })
  const added = await call(app.kernel, 'POST', `/articles/${slug}/comments`, {
    token: bob,
    body: { comment: { body: 'Thank you so much!' } },
  })
  assert.is(added.status, 200)
  const { comment } = added.json<{
    comment: { id: number; createdAt: string; updatedAt: string }
  }>()
  assert.ok(Number.isInteger(comment.id))
  assert.match(comment.createdAt, ISO)
  assert.equal(added.json(), {
    comment: {
      id: comment.id,
      createdAt: comment.createdAt,
      updatedAt: comment.updatedAt,
      body: 'Thank you so much!',
      author: { username: 'bob', bio: null, image: null, following: false },
    },
  })
  await call(app.kernel, 'POST', '/profiles/bob/follow', { token: ann })
  const listed = await call(app.kernel, 'GET', `/articles/${slug}/comments`, { token: ann })
  assert.equal(
    listed
      .json<{ comments: { author: { following: boolean } }[] }>()
      .comments.map((c) => c.author.following),
    [true],
  )
  const guest = await call(app.kernel, 'GET', `/articles/${slug}/comments`)
  assert.equal(
    guest
      .json<{ comments: { id: number; author: { following: boolean } }[] }>()
      .comments.map((c) => [c.id, c.author.following]),
    [[comment.id, false]],
  )
  const empty = await call(app.kernel, 'POST', `/articles/${slug}/comments`, {
    token: bob,
    body: { comment: { body: '' } },
  })
  assert.is(empty.status, 422)
  assert.is(
    (
      await call(app.kernel, 'POST', `/articles/${slug}/comments`, {
        body: { comment: { body: 'x' } },
      })
    ).status,
    401,
  )
  assert.is((await call(app.kernel, 'GET', '/articles/nothing-here/comments')).status, 404)

  const foreign = await call(app.kernel, 'DELETE', `/articles/${slug}/comments/${comment.id}`, {
    token: ann,
  })
  assert.is(foreign.status, 403)
  assert.equal(errorsOf(foreign), ['only its author may delete this comment'])
  const deleted = await call(app.kernel, 'DELETE', `/articles/${slug}/comments/${comment.id}`, {
    token: bob,
  })
  assert.is(deleted.status, 204)
  assert.equal((await call(app.kernel, 'GET', `/articles/${slug}/comments`)).json(), {
    comments: [],
  })
  assert.is(
    (await call(app.kernel, 'DELETE', `/articles/${slug}/comments/${comment.id}`, { token: bob }))
      .status,
    404,
  )
  for (const id of ['abc', '99999999999999999999'])
    assert.is(
      (await call(app.kernel, 'DELETE', `/articles/${slug}/comments/${id}`, { token: bob })).status,
      404,
      id,
    )
})

test('GET /tags lists the tags in use, the most used first', async ({ app, ann }) => {
  await write(app.kernel, ann, { title: 'T1', tagList: ['zeta', 'alpha'] })
  await write(app.kernel, ann, { title: 'T2', tagList: ['zeta'] })
  const res = await call(app.kernel, 'GET', '/tags')
  assert.is(res.status, 200)
  assert.equal(res.json(), { tags: ['zeta', 'alpha'] })
})

test('an unknown path under /api answers a JSON 404', async ({ app }) => {
  const res = await app.kernel.inject('/api/nothing')
  assert.is(res.status, 404)
  assert.is(res.headers['content-type'], 'application/json; charset=utf-8')
})

test.run()
