import SwaggerParser from '@apidevtools/swagger-parser'
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { Router } from 'fw'
import { buildDocument } from 'fw/plugins/openapi'

// `bearerAuth` follows the auth plugin's `auth.token_scheme`: HTTP bearer for `Bearer`, the
// `Authorization` header as an API key for a scheme OpenAPI cannot name (`Token`).
const test = suite('openapi: the token scheme')

async function documentWith(tokenScheme: string | undefined) {
  const router = new Router()
  router.get('api/me', () => ({})).name('me')
  const scanned = router.routes().map((route) => ({
    route,
    comment: undefined,
    tag: 'Me',
    tagComment: undefined,
  }))
  const info = {
    title: 't',
    version: '1.0.0',
    servers: [],
    ...(tokenScheme ? { tokenScheme } : {}),
  }
  return buildDocument(scanned, info, () => ({ security: ['bearerAuth'], responses: {} }))
}

test('Bearer (or none given): HTTP bearer authentication', async () => {
  for (const scheme of [undefined, 'Bearer', 'bearer']) {
    const doc = await documentWith(scheme)
    assert.equal(
      doc.components?.securitySchemes?.bearerAuth,
      { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      String(scheme),
    )
  }
})

test('another scheme: the Authorization header as an API key, saying how to write it', async () => {
  const doc = await documentWith('Token')
  assert.equal(doc.components?.securitySchemes?.bearerAuth, {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: 'An access token (JWT) as `Authorization: Token <token>`.',
  })
  assert.equal(doc.paths['/api/me']?.get?.security, [{ bearerAuth: [] }])
  await SwaggerParser.validate(structuredClone(doc) as never)
})

test.run()
