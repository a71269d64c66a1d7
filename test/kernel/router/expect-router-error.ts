import * as assert from 'uvu/assert'
import { RouterError, type RouterErrorCode } from '../../../kernel/router/router-error.js'

/** Asserts that `fn` throws a RouterError with `code` whose message mentions every one of `mentions`. */
export function expectRouterError(
  fn: () => unknown,
  code: RouterErrorCode,
  ...mentions: string[]
): RouterError {
  try {
    fn()
  } catch (error) {
    assert.instance(error, RouterError)
    const e = error as RouterError
    assert.is(e.code, code, e.message)
    for (const text of mentions)
      assert.ok(e.message.includes(text), `expected the message to mention '${text}': ${e.message}`)
    return e
  }
  assert.unreachable(`expected a RouterError ${code}`)
  throw new Error('unreachable')
}
