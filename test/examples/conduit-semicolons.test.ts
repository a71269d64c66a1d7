// Conduit on either database: a username or a comment holding a `;` is stored and answered like
// any other (201, then read back as written), never a 500 over a row that was committed.
import * as assert from 'uvu/assert'
import { appSuite } from '../fixtures/app-suite.js'
import { call, register, startConduit, write } from './conduit-fixtures.js'

const test = appSuite('conduit values with ;', startConduit)

test('registering "semi;2" answers 201 and its profile reads back', async ({ app }) => {
  const res = await call(app.kernel, 'POST', '/users', {
    body: { user: { username: 'semi;2', email: 'semi2@conduit.test', password: 'semi-pass' } },
  })
  assert.is(res.status, 201, res.body)
  const profile = await call(app.kernel, 'GET', `/profiles/${encodeURIComponent('semi;2')}`)
  assert.is(profile.status, 200, profile.body)
  assert.is(profile.json<{ profile: { username: string } }>().profile.username, 'semi;2')
})

test('a comment "semi; colon" answers 200 and lists as written', async ({ app }) => {
  const token = await register(app.kernel, 'commenter')
  const slug = await write(app.kernel, token, { title: 'Semicolons' })
  const added = await call(app.kernel, 'POST', `/articles/${slug}/comments`, {
    token,
    body: { comment: { body: 'semi; colon' } },
  })
  assert.is(added.status, 200, added.body)
  const listed = await call(app.kernel, 'GET', `/articles/${slug}/comments`)
  assert.equal(
    listed.json<{ comments: { body: string }[] }>().comments.map((c) => c.body),
    ['semi; colon'],
  )
})

test.run()
