// The `views` key of the debug payload: the templates the request rendered.
import type { ProjectionInput } from 'fw/plugins/debug'

/** Each `view.rendered` of the request: template, file and milliseconds. */
export function viewsProjection(i: ProjectionInput): unknown {
  return i.of('view.rendered').map((e) => ({
    template: e.data.template,
    file: e.data.file,
    ms: i.ms(e.data.duration),
  }))
}
