import { HttpError, type RequestContext } from 'fw'

const MAX_MESSAGE = 1000

/**
 * `GET /_demo/log?message=…`: writes one `info` line with that message to the app's log (through
 * the logging plugin, so it carries the request id when the request has one and is a
 * `log.written` event), and answers `{logged: true, message}`. A missing or over-long message is
 * a 422.
 */
export function log(ctx: RequestContext): { logged: true; message: string } {
  const raw = Array.isArray(ctx.query.message) ? ctx.query.message[0] : ctx.query.message
  if (typeof raw !== 'string' || raw.trim() === '' || raw.length > MAX_MESSAGE) {
    throw new HttpError(422, {
      errors: { message: [`Give a message of 1 to ${MAX_MESSAGE} characters: ?message=hello.`] },
    })
  }
  const logger = ctx.kernel.hasPlugin('logging')
    ? ctx.kernel.plugin('logging').logger(ctx)
    : ctx.kernel.logger
  logger.info(raw, { route: 'demo.log' })
  return { logged: true, message: raw }
}
