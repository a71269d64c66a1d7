// The Conduit example's usernames and emails: stored NFKC-folded and trimmed, refused (422 in
// RealWorld's body, never a 500) when blank, too long for their column or holding an invisible or
// control character, or mixing letters of scripts that pass for one another; and no overlong text field of any body answers a 500.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { call, errorsOf, register, startConduit, type Conduit } from './conduit-fixtures.js'

const test = suite<Conduit & { token: string }>('conduit example: names')

test.before(async (context) => {
  Object.assign(context, await startConduit())
  context.token = await register(context.kernel, 'alice1')
})
test.after(async (context) => context.close())

const signUp = (
  app: Conduit,
  username: string,
  email = `${username.length}-${Math.random()}@c.test`,
) => call(app.kernel, 'POST', '/users', { body: { user: { username, email, password: 'pw' } } })

test('a blank, overlong or invisible username is a 422 naming it, at registration', async (app) => {
  const cases: [string, string][] = [
    ['   ', 'The user.username must NOT have fewer than 1 characters.'],
    ['\t', 'The user.username must NOT have fewer than 1 characters.'],
    ['x'.repeat(101), 'The user.username must NOT have more than 100 characters.'],
    ['ali\u200bce1', 'The user.username must not hold invisible or control characters.'],
    ['\u202eevil', 'The user.username must not hold invisible or control characters.'],
    ['bob\u0007', 'The user.username must not hold invisible or control characters.'],
    ['bob\u3164', 'The user.username must not hold invisible or control characters.'],
  ]
  for (const [username, message] of cases) {
    const res = await signUp(app, username)
    assert.is(res.status, 422, JSON.stringify(username))
    assert.equal(errorsOf(res), [message], JSON.stringify(username))
  }
  assert.is((await signUp(app, 'y'.repeat(100))).status, 201, 'the column holds 100')
})

test('a username mixing look-alike scripts is a 422; one script, any script, is a name', async (app) => {
  const mixed =
    'The user.username must not mix Latin, Greek, Cyrillic, Armenian or Cherokee letters.'
  // Cyrillic а, Greek ο, Armenian օ, Cherokee Ꭺ among Latin letters; Latin among Cyrillic.
  for (const username of ['\u0430lice1', 'b\u03bfb', 'j\u0585hn', '\u13aalice', 'ив\u0061н']) {
    const res = await signUp(app, username)
    assert.is(res.status, 422, JSON.stringify(username))
    assert.equal(errorsOf(res), [mixed], JSON.stringify(username))
  }
  for (const username of ['иван', 'σοφία', 'José Müller', '山田 太郎', 'zoë_2']) {
    const res = await signUp(app, username)
    assert.is(res.status, 201, `${JSON.stringify(username)}: ${res.body}`)
  }
})

test('a fullwidth twin of a username is that username: taken', async (app) => {
  const res = await signUp(app, 'ａｌｉｃｅ１')
  assert.is(res.status, 422)
  assert.equal(errorsOf(res), ['username has already been taken'])
})

test('a username and an email are stored trimmed and folded', async (app) => {
  const res = await signUp(app, '  carol  ', ' Ｃarol@C.test ')
  assert.is(res.status, 201, res.body)
  const { user } = res.json<{ user: { username: string; email: string } }>()
  assert.equal([user.username, user.email], ['carol', 'Carol@C.test'])
  const login = await call(app.kernel, 'POST', '/users/login', {
    body: { user: { email: 'ｃarol@c.test ', password: 'pw' } },
  })
  assert.is(login.status, 200, 'signs in by the folded email')
  const profile = await call(app.kernel, 'GET', '/profiles/carol')
  assert.is(profile.status, 200)
})

test('an email: too long for its column, invisible, or not one, a 422', async (app) => {
  for (const email of [`${'e'.repeat(250)}@c.test`, 'e\u200b@c.test', 'not an email']) {
    const res = await signUp(app, `u${email.length}`, email)
    assert.is(res.status, 422, email.slice(0, 20))
    assert.is(errorsOf(res).length, 1, res.body)
  }
})

test('PUT /user: a blank or overlong username is a 422 and changes nothing', async (app) => {
  for (const username of ['   ', 'z'.repeat(5000), 'ali\u200bce']) {
    const res = await call(app.kernel, 'PUT', '/user', {
      token: app.token,
      body: { user: { username, bio: 'changed' } },
    })
    assert.is(res.status, 422, username.slice(0, 10))
  }
  const email = await call(app.kernel, 'PUT', '/user', {
    token: app.token,
    body: { user: { email: `${'e'.repeat(5000)}@c.test` } },
  })
  assert.is(email.status, 422)
  const me = await call(app.kernel, 'GET', '/user', { token: app.token })
  assert.equal(
    [
      me.json<{ user: { username: string; bio: unknown } }>().user.username,
      me.json<{ user: { bio: unknown } }>().user.bio,
    ],
    ['alice1', null],
  )
})

test('no overlong text field answers a 500', async (app) => {
  const long = 'w'.repeat(5000)
  const token = app.token
  const bio = await call(app.kernel, 'PUT', '/user', {
    token,
    body: { user: { bio: long, image: long } },
  })
  assert.is(bio.status, 200)
  const article = await call(app.kernel, 'POST', '/articles', {
    token,
    body: { article: { title: long, description: long, body: long, tagList: [long] } },
  })
  assert.is(article.status, 201)
  const slug = article.json<{ article: { slug: string } }>().article.slug
  const comment = await call(app.kernel, 'POST', `/articles/${slug}/comments`, {
    token,
    body: { comment: { body: long } },
  })
  assert.is(comment.status, 200)
  const changed = await call(app.kernel, 'PUT', `/articles/${slug}`, {
    token,
    body: { article: { title: `${long}!` } },
  })
  assert.is(changed.status, 200)
})

test.run()
