import { definePluginErrors, type CodesOf } from 'fw'

/** The openapi plugin's error codes (its commands print the message and exit 1). */
export const openapiErrors = definePluginErrors('openapi', {
  FW_ERR_OPENAPI_NO_CONTROLLERS: {
    when: '`fw api:docs`: the controllers directory (`--controllers`, or the default `api/controllers` then `controllers`) does not exist under the app root.',
    fix: 'Pass `--controllers=<dir>` relative to the app root, or create one of the defaults.',
    message: ({ dir, given }: { dir: string; given: boolean }) =>
      given
        ? `The controllers directory ${dir} does not exist. Pass --controllers=<dir>, relative to the app root.`
        : `No controllers directory: neither api/controllers nor controllers exists under ${dir}. Pass --controllers=<dir>.`,
  },
  FW_ERR_OPENAPI_OVERRIDES: {
    when: '`fw api:docs --overrides`: the file cannot be read, is not JSON, or is not a JSON object.',
    fix: 'Point `--overrides` at a JSON object (a partial OpenAPI document).',
    message: ({ file, reason }: { file: string; reason: string }) =>
      `The overrides file ${file} cannot be used: ${reason}.`,
  },
  FW_ERR_OPENAPI_OUTPUT: {
    when: '`fw api:docs`: the output file cannot be written (a directory in its place, no permission).',
    fix: 'Pass `--output=<file>` somewhere writable.',
    message: ({ file, reason }: { file: string; reason: string }) =>
      `Cannot write the API document to ${file}: ${reason}.`,
  },
  FW_ERR_OPENAPI_INPUT: {
    when: '`fw create:api-client`: the document (`--input`, default the one `fw api:docs` writes) is missing or is not an OpenAPI document.',
    fix: 'Run `fw api:docs` first, or pass `--input=<document>`.',
    message: ({ file, reason }: { file: string; reason: string }) =>
      `Cannot read the API document ${file}: ${reason}. Run fw api:docs first, or pass --input=<document>.`,
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof openapiErrors> {}
}
