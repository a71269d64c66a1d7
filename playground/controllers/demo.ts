import {
  empty as noContent,
  html,
  redirect,
  text as plainText,
  type Reply,
  type RequestContext,
} from 'fw'

/** `GET /_demo/ping`: the benchmarks' baseline, touching nothing else. */
export function ping(): { hello: string; n: number } {
  return { hello: 'world', n: 1 }
}

/** `GET /_demo/array`: a top-level JSON array (nothing can add a key to it). */
export function array(): { id: number; name: string }[] {
  return [
    { id: 1, name: 'alpha' },
    { id: 2, name: 'beta' },
    { id: 3, name: 'gamma' },
  ]
}

/** `GET /_demo/text`: a plain-text body. */
export function text(): Reply {
  return plainText('Hello from the fw playground.\n')
}

/** `GET /_demo/fragment`: an HTML fragment, without `</body>` (nowhere to inject a toolbar). */
export function fragment(): Reply {
  return html(
    '<section class="fragment"><h2>A fragment</h2><p>HTML without a body element.</p></section>\n',
  )
}

/** `GET /_demo/empty`: 204, no body. */
export function empty(): Reply {
  return noContent()
}

/** `GET /_demo/redirect`: 302 to `/`. */
export function redirectHome(): Reply {
  return redirect('/')
}

/** `GET /_demo/error`: a handler that throws, to show the error pages and the exception log. */
export function error(ctx: RequestContext): never {
  throw new Error(`The handler of ${ctx.path} threw on purpose.`)
}
