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

export const newUser = wrapped(
  'user',
  { username: text, email: { type: 'string', format: 'email' }, password: text },
  ['username', 'email', 'password'],
)

export const loginUser = wrapped('user', { email: text, password: text }, ['email', 'password'])

const nullableText: JsonSchema = { type: 'string', nullable: true }

export const updateUser = wrapped('user', {
  username: text,
  email: { type: 'string', format: 'email' },
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
