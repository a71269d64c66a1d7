import { definePluginErrors, type CodesOf } from 'fw'

/** The uploads plugin's error codes. A refused upload's reply names the field in `field`. */
export const uploadsErrors = definePluginErrors('uploads', {
  FW_ERR_UPLOADS_NOT_MULTIPART: {
    when: '`files(ctx)` or `file(ctx, name)` on a request whose body is not `multipart/form-data`.',
    fix: "The client's fault: send the form as `multipart/form-data`.",
    status: 415,
    error: 'unsupported_media_type',
    message: 'This route takes a multipart/form-data body.',
  },
  FW_ERR_UPLOADS_TOO_LARGE: {
    when: 'A file, a field or the whole upload passed its size limit (`uploads.max_file_size`, `max_field_size`, `max_total_size`, or the rules given to `files()`/`file()`). Reading stopped there; the connection closes after the answer.',
    fix: "The client's fault: send less; or raise the limit.",
    status: 413,
    error: 'payload_too_large',
    message: ({ field, what, limit }: { field: string; what: string; limit: number }) =>
      what !== 'body'
        ? `The ${what} ${JSON.stringify(field)} exceeds ${limit} bytes.`
        : `The multipart body exceeds ${limit} bytes${field === '' ? '' : ` (passed in ${JSON.stringify(field)})`}.`,
  },
  FW_ERR_UPLOADS_TOO_MANY: {
    when: 'The form has more files or more fields than allowed (`uploads.max_files`, `max_fields`, or the rules). Reading stopped at the first one too many.',
    fix: "The client's fault: send fewer parts; or raise the limit.",
    status: 413,
    error: 'payload_too_large',
    message: ({ field, what, limit }: { field: string; what: string; limit: number }) =>
      `Too many ${what}: ${JSON.stringify(field)} is one more than the ${limit} allowed.`,
  },
  FW_ERR_UPLOADS_REFUSED: {
    when: 'A file is not what its rules accept: its content is not of an allowed type (read from its first bytes, whatever its name says), its name has another extension, or it came in a field the route does not take.',
    fix: "The client's fault: send a file of an accepted type, in an accepted field.",
    status: 422,
    error: 'invalid_upload',
    message: ({ field, reason }: { field: string; reason: string }) =>
      `The file ${JSON.stringify(field)} ${reason}.`,
  },
  FW_ERR_UPLOADS_MISSING: {
    when: '`file(ctx, name)`: the form has no file in that field (or an empty one).',
    fix: "The client's fault: send the file.",
    status: 422,
    error: 'invalid_upload',
    message: ({ field }: { field: string }) => `The ${field} file is required.`,
  },
  FW_ERR_UPLOADS_MALFORMED: {
    when: 'The multipart body does not parse (no boundary, a broken part) or ended before its closing boundary (an aborted upload).',
    fix: "The client's fault: send a whole, well-formed multipart body.",
    status: 400,
    error: 'malformed_body',
    message: ({ problem }: { problem: string }) => `The multipart body ${problem}.`,
  },
  FW_ERR_UPLOADS_PATH: {
    when: '`upload.moveTo(path)` was given a path outside `uploads.dir` (`..`, an absolute path elsewhere, a link leading out) or one that exists already.',
    fix: 'Build the path from names you control (`upload.name` is already a bare file name); pass `{ overwrite: true }` to replace a file.',
    status: 400,
    error: 'invalid_upload_path',
    message: ({ path, problem }: { path: string; problem: string }) =>
      `Cannot move the upload to ${JSON.stringify(path)}: ${problem}.`,
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof uploadsErrors> {}
}
