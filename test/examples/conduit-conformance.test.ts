// The Conduit example's API document, judged from outside: Redocly's recommended rules find
// nothing in it, and every status each operation answers, errors included, is documented for that
// operation with the body it sends (checked with ajv against the document's own schemas); every
// status the app documents is one a request here gets.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { documentSchemas, redoclyProblems } from '../fixtures/document-schemas.js'
import type { Kernel } from 'fw'
import { call, register, startConduit, write, type Conduit } from './conduit-fixtures.js'

interface Operation {
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>
}
interface Document {
  paths: Record<string, Record<string, Operation>>
  components: { schemas: Record<string, unknown> }
}

const test = suite<Conduit & { doc: Document }>('conduit example: the document and the answers')

test.before(async (context) => {
  Object.assign(context, await startConduit())
  context.doc = (await context.kernel.plugin('openapi').document()) as unknown as Document
})
test.after(async (context) => context.close())

test("Redocly's recommended rules find no error and no warning", async ({ doc }) => {
  assert.equal(await redoclyProblems(doc), [])
})

/** One request: the documented path, the URL, who sends it and what, and the status it gets. */
type Case = [
  method: string,
  path: string,
  url: string,
  status: number,
  options?: { token?: string; body?: Record<string, unknown> | string },
]

const TOO_LARGE = { user: { bio: 'x'.repeat(1_100_000) } }

async function cases(kernel: Kernel): Promise<Case[]> {
  const ann = await register(kernel, 'ann')
  const bob = await register(kernel, 'bob')
  const slug = await write(kernel, ann, { title: 'Dragons', tagList: ['dragons'] })
  const doomed = await write(kernel, ann, { title: 'Doomed' })
  const commented = await call(kernel, 'POST', `/articles/${slug}/comments`, {
    token: ann,
    body: { comment: { body: 'first' } },
  })
  const id = commented.json<{ comment: { id: number } }>().comment.id
  const a = { token: ann }
  const b = { token: bob }
  const json = (token: string | undefined, body: Record<string, unknown>) => ({ token, body })
  const malformed = { token: ann, body: '{"user":' }
  const huge = { token: ann, body: TOO_LARGE }
  const article = `/articles/${slug}`
  const missing = '/articles/no-such-article-000000'
  const login = (password: string) =>
    json(undefined, { user: { email: 'ann@conduit.test', password } })
  return [
    [
      'post',
      '/users',
      '/users',
      201,
      json(undefined, { user: { username: 'cy', email: 'cy@c.test', password: 'pw' } }),
    ],
    [
      'post',
      '/users',
      '/users',
      422,
      json(undefined, { user: { username: 'ann', email: 'ann@c.test', password: 'pw' } }),
    ],
    ['post', '/users', '/users', 422, json(undefined, { user: {} })],
    ['post', '/users', '/users', 400, malformed],
    ['post', '/users', '/users', 413, huge],
    ['post', '/users/login', '/users/login', 200, login('ann-pass')],
    ['post', '/users/login', '/users/login', 422, json(undefined, { user: {} })],
    ['post', '/users/login', '/users/login', 400, malformed],
    ['post', '/users/login', '/users/login', 413, huge],
    ['post', '/users/login', '/users/login', 401, login('wrong')],
    ['post', '/users/login', '/users/login', 401, login('wrong')],
    ['post', '/users/login', '/users/login', 401, login('wrong')],
    ['post', '/users/login', '/users/login', 429, login('wrong')],
    ['get', '/user', '/user', 200, a],
    ['get', '/user', '/user', 401],
    ['put', '/user', '/user', 200, json(ann, { user: { bio: 'I write.' } })],
    ['put', '/user', '/user', 422, json(ann, { user: { username: '' } })],
    ['put', '/user', '/user', 401, json(undefined, { user: { bio: 'x' } })],
    ['put', '/user', '/user', 400, malformed],
    ['put', '/user', '/user', 413, huge],
    ['get', '/profiles/{username}', '/profiles/bob', 200],
    ['get', '/profiles/{username}', '/profiles/nobody', 404],
    ['get', '/profiles/{username}', '/profiles/a%00b', 404],
    ['post', '/profiles/{username}/follow', '/profiles/bob/follow', 200, a],
    ['post', '/profiles/{username}/follow', '/profiles/ann/follow', 422, a],
    ['post', '/profiles/{username}/follow', '/profiles/nobody/follow', 404, a],
    ['post', '/profiles/{username}/follow', '/profiles/a%00b/follow', 404, a],
    ['post', '/profiles/{username}/follow', '/profiles/bob/follow', 401],
    ['delete', '/profiles/{username}/follow', '/profiles/bob/follow', 200, a],
    ['delete', '/profiles/{username}/follow', '/profiles/nobody/follow', 404, a],
    ['delete', '/profiles/{username}/follow', '/profiles/a%00b/follow', 404, a],
    ['delete', '/profiles/{username}/follow', '/profiles/bob/follow', 401],
    ['get', '/articles/feed', '/articles/feed', 200, b],
    ['get', '/articles/feed', '/articles/feed?limit=0', 422, b],
    ['get', '/articles/feed', '/articles/feed', 401],
    ['get', '/articles', '/articles?tag=dragons', 200],
    ['get', '/articles', '/articles?offset=-1', 422],
    ['get', '/articles', '/articles?author=a%00b', 400],
    [
      'post',
      '/articles',
      '/articles',
      201,
      json(ann, { article: { title: 'T', description: 'D', body: 'B' } }),
    ],
    ['post', '/articles', '/articles', 422, json(ann, { article: { title: '' } })],
    ['post', '/articles', '/articles', 400, malformed],
    ['post', '/articles', '/articles', 413, huge],
    ['post', '/articles', '/articles', 401, json(undefined, { article: {} })],
    ['get', '/articles/{slug}', article, 200],
    ['get', '/articles/{slug}', missing, 404],
    ['get', '/articles/{slug}', '/articles/a%00b', 404],
    ['put', '/articles/{slug}', article, 200, json(ann, { article: { body: 'More.' } })],
    ['put', '/articles/{slug}', article, 422, json(ann, { article: { title: '' } })],
    ['put', '/articles/{slug}', article, 403, json(bob, { article: { body: 'Mine.' } })],
    ['put', '/articles/{slug}', missing, 404, json(ann, { article: { body: 'x' } })],
    ['put', '/articles/{slug}', article, 400, malformed],
    ['put', '/articles/{slug}', article, 413, huge],
    ['put', '/articles/{slug}', article, 401, json(undefined, { article: {} })],
    ['post', '/articles/{slug}/favorite', `${article}/favorite`, 200, b],
    ['post', '/articles/{slug}/favorite', `${missing}/favorite`, 404, b],
    ['post', '/articles/{slug}/favorite', `${article}/favorite`, 401],
    ['delete', '/articles/{slug}/favorite', `${article}/favorite`, 200, b],
    ['delete', '/articles/{slug}/favorite', `${missing}/favorite`, 404, b],
    ['delete', '/articles/{slug}/favorite', `${article}/favorite`, 401],
    ['get', '/articles/{slug}/comments', `${article}/comments`, 200],
    ['get', '/articles/{slug}/comments', `${missing}/comments`, 404],
    [
      'post',
      '/articles/{slug}/comments',
      `${article}/comments`,
      200,
      json(bob, { comment: { body: 'Yes.' } }),
    ],
    ['post', '/articles/{slug}/comments', `${article}/comments`, 422, json(bob, { comment: {} })],
    [
      'post',
      '/articles/{slug}/comments',
      `${missing}/comments`,
      404,
      json(bob, { comment: { body: 'x' } }),
    ],
    ['post', '/articles/{slug}/comments', `${article}/comments`, 400, malformed],
    ['post', '/articles/{slug}/comments', `${article}/comments`, 413, huge],
    [
      'post',
      '/articles/{slug}/comments',
      `${article}/comments`,
      401,
      json(undefined, { comment: {} }),
    ],
    ['delete', '/articles/{slug}/comments/{id}', `${article}/comments/${id}`, 403, b],
    ['delete', '/articles/{slug}/comments/{id}', `${article}/comments/987654`, 404, a],
    ['delete', '/articles/{slug}/comments/{id}', `${article}/comments/${id}`, 401],
    ['delete', '/articles/{slug}/comments/{id}', `${article}/comments/${id}`, 204, a],
    ['delete', '/articles/{slug}', `/articles/${doomed}`, 403, b],
    ['delete', '/articles/{slug}', missing, 404, a],
    ['delete', '/articles/{slug}', `/articles/${doomed}`, 401],
    ['delete', '/articles/{slug}', `/articles/${doomed}`, 204, a],
    ['get', '/tags', '/tags', 200],
  ]
}

/** What the document lists that no request here can get: fw's derived 403 of a signed-in route
 * (Conduit forbids only changing someone else's article or comment), and the 400 the server answers
 * before routing to a request naming its `Host` twice (`GET /tags` has no other client error). */
function unreachable(path: string, method: string, status: string, op: Operation): boolean {
  if (status === '403')
    return op.responses[status]!.description === 'The credential may not do this.'
  return path === '/api/tags' && method === 'get' && status === '400'
}

test('every status an operation answers is documented, with the body it sends', async ({
  kernel,
  doc,
}) => {
  const check = documentSchemas(doc)
  const got = new Set<string>()
  for (const [method, path, url, status, options = {}] of await cases(kernel)) {
    const label = `${method.toUpperCase()} ${url.slice(0, 60)} → ${status}`
    const res =
      typeof options.body === 'string'
        ? await kernel.inject({
            method: method.toUpperCase(),
            url: `/api${url}`,
            headers: {
              'content-type': 'application/json',
              authorization: `Token ${options.token}`,
            },
            body: options.body,
          })
        : await call(kernel, method.toUpperCase(), url, options as never)
    assert.is(res.status, status, `${label}: ${res.body.slice(0, 200)}`)
    const response = doc.paths[`/api${path}`]?.[method]?.responses[String(status)]
    assert.ok(response, `${label}: the status is documented`)
    got.add(`${method} /api${path} ${status}`)
    const schema = response.content?.['application/json']?.schema
    if (res.body === '') {
      assert.is(schema, undefined, `${label}: documented without a body`)
      continue
    }
    const { valid, errors } = check(schema, res.json())
    assert.ok(valid, `${label}: ${errors}`)
  }
  const documented = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).flatMap(([method, op]) =>
      Object.keys(op.responses)
        .filter((status) => !unreachable(path, method, status, op))
        .map((status) => `${method} ${path} ${status}`),
    ),
  )
  assert.equal([...got].sort(), documented.sort(), 'every documented status is answered')
})

test("the feed's page is documented as a page of articles", ({ doc }) => {
  const feed = doc.paths['/api/articles/feed']!.get!.responses['200']!
  const list = doc.paths['/api/articles']!.get!.responses['200']!
  assert.equal(feed.content, list.content)
})

test('a method the feed does not take is a 405 naming the one it takes', async ({ kernel }) => {
  for (const method of ['PUT', 'DELETE', 'OPTIONS']) {
    const res = await call(kernel, method, '/articles/feed', { body: { article: { body: 'x' } } })
    assert.is(res.status, 405, method)
    assert.is(res.headers.allow, 'GET, HEAD', method)
    assert.equal(res.json(), { errors: { body: ['Method Not Allowed'] } }, method)
  }
})

test.run()
