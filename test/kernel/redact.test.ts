// The kernel's one secret rule (docs/redaction.md): which keys and values it masks, how it copies,
// and the per-kernel list plugins add to.
import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import {
  createRedaction,
  maskErrorMessage,
  reportedMessage,
  isSecretKey,
  isSecretValue,
  MASK,
  redact,
  redactString,
  SECRET_KEYS,
} from 'fw'
import { createTestKernel } from 'fw/testing'

const test = suite('redact')

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJlLXNpZ25hdHVyZQ'

test('masks every key of the documented list, whatever its spelling', () => {
  for (const key of [
    'password',
    'Password',
    'password_hash',
    'passwordHash',
    'new-password',
    'pwd',
    'totp_code',
    'totpCode',
    'backup_code',
    'backupCodes',
    'app_key',
    'appKey',
    'csrf',
    'csrfToken',
    'X-CSRF-Token',
    'session',
    'session_id',
    'client_id',
    'clientId',
    'client_secret',
    'authorization',
    'Authorization',
    'cookie',
    'set-cookie',
    'x-api-key',
    'apiKey',
    'api_key',
    'access_token',
    'refresh_token',
    'accessToken',
    'token',
    'private_key',
    'signing_key',
    'encryptionKey',
    'credentials',
    'code',
    'otp',
    'pin',
    'nonce',
    'sig',
    'AWSAccessKeyId',
    'aws_access_key_id',
    'signature',
    'salt',
  ])
    assert.ok(isSecretKey(key), `${key} is masked`)
})

test('leaves ordinary keys alone', () => {
  for (const key of [
    'token_type',
    'tokenCount',
    'signal',
    'expires_in',
    'id',
    'user_id',
    'username',
    'email',
    'name',
    'status',
    'method',
    'path',
    'created_at',
    'monkey',
    'keyboard',
    'description',
    'scope',
  ])
    assert.not.ok(isSecretKey(key), `${key} is shown`)
})

test('every listed name is itself masked', () => {
  for (const list of [SECRET_KEYS.exact, SECRET_KEYS.endings, SECRET_KEYS.anywhere])
    for (const key of list) assert.ok(isSecretKey(key), key)
})

test('masks credential-looking values whatever their key, and passwords inside URLs', () => {
  assert.ok(isSecretValue(JWT))
  assert.ok(isSecretValue('Bearer abcdefghijklmnopqrstuvwxyz'))
  assert.ok(isSecretValue('a1'.repeat(24)))
  assert.not.ok(isSecretValue('a short note'))
  assert.not.ok(isSecretValue('x'.repeat(50)), 'long but no digit: not opaque')
  assert.not.ok(isSecretValue(42))
  assert.is(redactString('postgresql://bob:hunter2@db:5432/x'), 'postgresql://bob:***@db:5432/x')
  assert.is(redactString('see https://example.com/a:b'), 'see https://example.com/a:b')
  assert.is(redactString(JWT), MASK)
})

test('copies deeply, masking nested keys and values, without touching the original', () => {
  const input = {
    user: { name: 'ann', password: 'pw', tokens: ['t1'] },
    list: [{ client_secret: 's' }, JWT, 3],
    url: 'redis://:r3dis@cache:6379',
    at: new Date(0),
    bytes: new Uint8Array(4),
    big: 10n,
  }
  const out = redact(input)
  assert.equal(out, {
    user: { name: 'ann', password: MASK, tokens: MASK },
    list: [{ client_secret: MASK }, MASK, 3],
    url: 'redis://:***@cache:6379',
    at: '1970-01-01T00:00:00.000Z',
    bytes: '[4 bytes]',
    big: '10',
  })
  assert.is(input.user.password, 'pw', 'the caller keeps its object')
})

test('errors keep name, message, code and a masked cause; the stack only when asked', () => {
  const error = Object.assign(new Error('payment failed', { cause: { card_pin: '1234', ok: 1 } }), {
    code: 'E_PAY',
  })
  assert.equal(redact({ error }), {
    error: {
      name: 'Error',
      message: 'payment failed',
      code: 'E_PAY',
      cause: { card_pin: MASK, ok: 1 },
    },
  })
  const withStack = redact(error, { stack: true }) as { stack?: string }
  assert.match(String(withStack.stack), /payment failed/)
})

test('follows toJSON, and writes cycles and deep nesting as markers', () => {
  const entity = { toJSON: () => ({ username: 'ann', password_hash: 'h' }) }
  assert.equal(redact(entity), { username: 'ann', password_hash: MASK })
  const loop: Record<string, unknown> = { a: 1 }
  loop.self = loop
  assert.equal(redact(loop), { a: 1, self: '[Circular]' })
  const same = { x: 1 }
  assert.equal(redact({ a: same, b: same }), { a: { x: 1 }, b: { x: 1 } }, 'siblings are no cycle')
  let deep: Record<string, unknown> = { v: 1 }
  for (let i = 0; i < 12; i++) deep = { d: deep }
  assert.ok(JSON.stringify(redact(deep)).includes('[Object]'))
})

test('a redaction masks the keys added to it, spelled any way; others are not affected', () => {
  const a = createRedaction()
  const b = createRedaction()
  a.addKeys('ssn', 'iban_number')
  a.addKeys('SSN')
  assert.equal(a.addedKeys, ['ssn', 'iban_number'])
  for (const key of ['ssn', 'user_ssn', 'userSsn', 'ibanNumber', 'IBAN-number'])
    assert.ok(a.isSecretKey(key), key)
  assert.not.ok(b.isSecretKey('ssn'))
  assert.not.ok(isSecretKey('ssn'), 'the built-in list is unchanged')
  assert.equal(a.redact({ ssn: '1', name: 'x' }), { ssn: MASK, name: 'x' })
  assert.equal(b.redact({ ssn: '1' }), { ssn: '1' })
})

test('each kernel has its own redaction', () => {
  const one = createTestKernel()
  const two = createTestKernel()
  one.redaction.addKeys('ssn')
  assert.ok(one.redaction.isSecretKey('ssn'))
  assert.not.ok(two.redaction.isSecretKey('ssn'))
})

test('an error given a reported message is written with it, its frames, and no cause', () => {
  const cause = new Error("insert into users values ('ann@example.test')")
  const error = new Error("insert into users values ('ann@example.test') - duplicate key", {
    cause,
  })
  maskErrorMessage(error, 'UniqueConstraintViolationException 23505')
  assert.is(reportedMessage(error), 'UniqueConstraintViolationException 23505')
  const written = redact({ error }, { stack: true }) as {
    error: { message: string; stack: string; cause?: unknown }
  }
  assert.is(written.error.message, 'UniqueConstraintViolationException 23505')
  assert.ok(written.error.stack.startsWith('Error: UniqueConstraintViolationException 23505\n'))
  assert.match(written.error.stack, /^\s+at /m)
  assert.is(written.error.cause, undefined)
  assert.not.match(JSON.stringify(written), 'ann@example.test')
  // An error nobody masked keeps its own message.
  assert.is(reportedMessage(cause), cause.message)
})

test.run()
