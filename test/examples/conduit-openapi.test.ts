// The Conduit example's API document (what `fw api:docs` writes): every path and method of
// RealWorld's specification, and a valid OpenAPI document.
import SwaggerParser from '@apidevtools/swagger-parser'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import type { Kernel } from 'fw'
import { createMemoryLogger } from 'fw/testing'
import createApp from '../../examples/conduit/app.js'

/** RealWorld's operations (its `api/openapi.yml`, whose server is `…/api`), written out here. */
const REALWORLD = [
  'POST /users/login',
  'POST /users',
  'GET /user',
  'PUT /user',
  'GET /profiles/{username}',
  'POST /profiles/{username}/follow',
  'DELETE /profiles/{username}/follow',
  'GET /articles/feed',
  'GET /articles',
  'POST /articles',
  'GET /articles/{slug}',
  'PUT /articles/{slug}',
  'DELETE /articles/{slug}',
  'GET /articles/{slug}/comments',
  'POST /articles/{slug}/comments',
  'DELETE /articles/{slug}/comments/{id}',
  'POST /articles/{slug}/favorite',
  'DELETE /articles/{slug}/favorite',
  'GET /tags',
]

const test = suite<{ kernel: Kernel }>('conduit example: the API document', {} as never)

test.before(async (context) => {
  context.kernel = createApp({
    env: { DATABASE_URL: 'pglite://memory' },
    logger: createMemoryLogger(),
  })
  await context.kernel.boot()
})
test.after(async ({ kernel }) => kernel.close())

test('has every path and method of RealWorld, under /api, and validates', async ({ kernel }) => {
  const doc = await kernel.plugin('openapi').document()
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.keys(item).map((method) => `${method.toUpperCase()} ${path.replace(/^\/api/, '')}`),
  )
  assert.equal(operations.sort(), [...REALWORLD].sort())
  await SwaggerParser.validate(structuredClone(doc) as never)
})

test('says which operations need the token, and how to send it', async ({ kernel }) => {
  const doc = await kernel.plugin('openapi').document()
  assert.equal(doc.components?.securitySchemes?.bearerAuth, {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'An access token (JWT) as `Authorization: Token <token>`.',
  })
  const security = (needed: boolean) =>
    Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => ((op as { security?: unknown[] }).security?.length ?? 0) > 0 === needed)
        .map(([method]) => `${method.toUpperCase()} ${path.replace(/^\/api/, '')}`),
    )
  const open = ['POST /users/login', 'POST /users', 'GET /profiles/{username}', 'GET /articles']
  open.push('GET /articles/{slug}', 'GET /articles/{slug}/comments', 'GET /tags')
  assert.equal(security(true).sort(), REALWORLD.filter((op) => !open.includes(op)).sort())
  // A public operation (a token only changes `following` and `favorited`) says so: `security: []`.
  assert.equal(security(false).sort(), open.sort())
  for (const item of Object.values(doc.paths))
    for (const op of Object.values(item)) assert.ok(Array.isArray(op.security))
  const list = doc.paths['/api/articles']!.get!
  assert.equal(
    (list.parameters ?? []).map((p) => (p as { name: string }).name),
    ['tag', 'author', 'favorited', 'limit', 'offset'],
  )
  assert.ok(doc.paths['/api/articles/{slug}']!.put!.responses['403'])
  // The lockout middleware on the sign-in route: its 429, and only there.
  const limited = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => (op as { responses?: Record<string, unknown> }).responses?.['429'])
      .map(([method]) => `${method.toUpperCase()} ${path}`),
  )
  assert.equal(limited, ['POST /api/users/login'])
  // In RealWorld's error body, as the app answers it, like the 401 of a wrong password.
  const login = doc.paths['/api/users/login']!.post!.responses
  assert.equal(login['429'], {
    description: 'Too many failed sign-ins for this email: see `Retry-After`.',
    content: login['401']!.content,
  })
})

test('documents a 403 only where the app sends one: changing what someone else wrote', async ({
  kernel,
}) => {
  const doc = await kernel.plugin('openapi').document()
  const forbidden = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([, op]) => (op as { responses?: Record<string, unknown> }).responses?.['403'])
      .map(([method]) => `${method.toUpperCase()} ${path.replace(/^\/api/, '')}`),
  )
  assert.equal(forbidden.sort(), [
    'DELETE /articles/{slug}',
    'DELETE /articles/{slug}/comments/{id}',
    'PUT /articles/{slug}',
  ])
  const user = doc.paths['/api/user']!.get!.responses
  assert.ok(user['401'], 'a signed-in route still documents its 401')
})

test.run()
