import type { JsonSchema } from 'fw'

// The request bodies RealWorld specifies, as JSON Schema: the kernel checks each before its
// handler runs (422 naming the fields; `errors.ts` gives it RealWorld's shape), and `fw api:docs`
// writes them into the OpenAPI document.

const text: JsonSchema = { type: 'string', minLength: 1 }

/** `{ "<key>": { …properties } }` with the `required` ones. */
function wrapped(key: string, properties: Record<string, JsonSchema>, required: string[] = []) {
  return {
    type: 'object',
    required: [key],
    properties: {
      [key]: { type: 'object', ...(required.length ? { required } : {}), properties },
    },
  } satisfies JsonSchema
}

// A username and an email as stored (`names.ts` normalizes them before this check): within their
// columns, `users.username varchar(100)` and `users.email varchar(255)`, so none is a database error.
const username: JsonSchema = {
  type: 'string',
  minLength: 1,
  maxLength: 100,
  description:
    'NFKC, trimmed; no invisible or control characters, no mix of Latin, Greek, Cyrillic, Armenian or Cherokee letters.',
}
const email: JsonSchema = { type: 'string', format: 'email', maxLength: 255 }

export const newUser = wrapped('user', { username, email, password: text }, [
  'username',
  'email',
  'password',
])

export const loginUser = wrapped('user', { email: text, password: text }, ['email', 'password'])

const nullableText: JsonSchema = { type: 'string', nullable: true }

export const updateUser = wrapped('user', {
  username,
  email,
  password: text,
  bio: nullableText,
  image: nullableText,
})

export const newArticle = wrapped(
  'article',
  {
    title: text,
    description: text,
    body: text,
    tagList: { type: 'array', items: { type: 'string' } },
  },
  ['title', 'description', 'body'],
)

export const updateArticle = wrapped('article', { title: text, description: text, body: text })

export const newComment = wrapped('comment', { body: text }, ['body'])

// The responses, for the API document: what each operation answers, and RealWorld's error body.

const nullable: JsonSchema = { type: 'string', nullable: true }
const dateTime: JsonSchema = { type: 'string', format: 'date-time' }

const profile: JsonSchema = {
  type: 'object',
  required: ['username', 'bio', 'image', 'following'],
  properties: {
    username: { type: 'string' },
    bio: nullable,
    image: nullable,
    following: { type: 'boolean' },
  },
}

const articleProperties = {
  slug: { type: 'string' },
  title: { type: 'string' },
  description: { type: 'string' },
  tagList: { type: 'array', items: { type: 'string' } },
  createdAt: dateTime,
  updatedAt: dateTime,
  favorited: { type: 'boolean' },
  favoritesCount: { type: 'integer' },
  author: profile,
} satisfies Record<string, JsonSchema>

const listedArticle: JsonSchema = {
  type: 'object',
  required: Object.keys(articleProperties),
  properties: articleProperties,
}

const article: JsonSchema = {
  type: 'object',
  required: [...Object.keys(articleProperties), 'body'],
  properties: { ...articleProperties, body: { type: 'string' } },
}

const comment: JsonSchema = {
  type: 'object',
  required: ['id', 'createdAt', 'updatedAt', 'body', 'author'],
  properties: {
    id: { type: 'integer' },
    createdAt: dateTime,
    updatedAt: dateTime,
    body: { type: 'string' },
    author: profile,
  },
}

const user: JsonSchema = {
  type: 'object',
  required: ['email', 'token', 'username', 'bio', 'image'],
  properties: {
    email: { type: 'string' },
    token: { type: 'string' },
    username: { type: 'string' },
    bio: nullable,
    image: nullable,
  },
}

/** `{ "<key>": schema }`. */
function one(key: string, schema: JsonSchema): JsonSchema {
  return { type: 'object', required: [key], properties: { [key]: schema } }
}

/** RealWorld's error body: `{"errors": {"body": ["…"]}}`. */
const errorBody: JsonSchema = one(
  'errors',
  one('body', { type: 'array', items: { type: 'string' } }),
)

const error = (description: string) => ({ description, schema: errorBody })

// The errors each operation can answer, every one in RealWorld's body (`errors.ts` gives the
// kernel's own errors that shape): `test/examples/conduit-openapi.test.ts` sends each.
const unauthorized = { 401: error('No valid `Authorization: Token …`.') }
const notFound = { 404: error('No such article, profile or comment.') }
const forbidden = { 403: error('Someone else’s article or comment.') }
/** What a filter of free text can meet: a character no PostgreSQL text can hold. */
const unstorable = { 400: error('A filter holds a character no text can hold (NUL, U+0000).') }
/** What a request body can meet before or in its handler. */
const badBody = {
  400: error('The body is not JSON, or holds a character no text can hold (NUL, U+0000).'),
  413: error('The body is larger than the server takes (1 MiB).'),
  422: error('The body does not match (each problem a message), or a name is taken.'),
}
const badPage = { 422: error('`limit` or `offset` is out of range.') }

const articlesPage = {
  description: 'A page of articles, newest first, and how many match.',
  schema: {
    type: 'object',
    required: ['articles', 'articlesCount'],
    properties: {
      articles: { type: 'array', items: listedArticle },
      articlesCount: { type: 'integer' },
    },
  } satisfies JsonSchema,
}
const theUser = (description: string) => ({ description, schema: one('user', user) })
const theProfile = { description: 'The profile.', schema: one('profile', profile) }
const theArticle = { description: 'The article.', schema: one('article', article) }

export const responses = {
  registered: { 201: theUser('The new user.'), ...badBody },
  signedIn: {
    200: theUser('The user.'),
    ...unauthorized,
    ...badBody,
    429: error('Too many failed sign-ins for this email: see `Retry-After`.'),
  },
  currentUser: { 200: theUser('The signed-in user.'), ...unauthorized },
  updatedUser: { 200: theUser('The signed-in user, changed.'), ...unauthorized, ...badBody },
  profile: { 200: theProfile, ...notFound },
  follow: {
    200: theProfile,
    ...unauthorized,
    ...notFound,
    422: error('You cannot follow yourself.'),
  },
  unfollow: { 200: theProfile, ...unauthorized, ...notFound },
  articles: { 200: articlesPage, ...unstorable, ...badPage },
  feed: { 200: articlesPage, ...unauthorized, ...badPage },
  article: { 200: theArticle, ...notFound },
  created: { 201: { ...theArticle, description: 'The new article.' }, ...unauthorized, ...badBody },
  changed: { 200: theArticle, ...unauthorized, ...forbidden, ...notFound, ...badBody },
  favorite: { 200: theArticle, ...unauthorized, ...notFound },
  deleted: { 204: { description: 'Deleted.' }, ...unauthorized, ...forbidden, ...notFound },
  comments: {
    200: {
      description: 'The comments, oldest first.',
      schema: one('comments', { type: 'array', items: comment }),
    },
    ...notFound,
  },
  comment: {
    200: { description: 'The new comment.', schema: one('comment', comment) },
    ...unauthorized,
    ...notFound,
    ...badBody,
  },
  tags: {
    200: {
      description: 'The tags in use.',
      schema: one('tags', { type: 'array', items: { type: 'string' } }),
    },
    // It reads nothing from the request: its only client error is one the server answers before
    // any route, in fw's own error body (`Error`), to a request that names its `Host` twice.
    400: { description: 'A malformed request (it names its `Host` twice).' },
  },
}

/** The query parameters of a list (`limit` 1–100, default 20; `offset` from 0). */
export const paging = {
  limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  offset: { type: 'integer', minimum: 0, default: 0 },
} satisfies Record<string, JsonSchema>

export const listQuery: JsonSchema = {
  type: 'object',
  properties: {
    tag: { type: 'string', description: 'Articles with this tag.' },
    author: { type: 'string', description: 'Articles by this username.' },
    favorited: { type: 'string', description: 'Articles this username favorited.' },
    ...paging,
  },
}

export const feedQuery: JsonSchema = { type: 'object', properties: paging }
