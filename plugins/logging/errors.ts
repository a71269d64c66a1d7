import { definePluginErrors, type CodesOf } from 'fw'

/** The logging plugin's error codes. */
export const loggingErrors = definePluginErrors('logging', {
  FW_ERR_LOGGING_FILE_UNWRITABLE: {
    when: 'The log file could not be opened or written (a directory that cannot be created, no permission, a full disk). Reported once through the logger the app had before the plugin (the console by default), with the cause.',
    fix: "Make the file's directory writable, or give the logging plugin another `file` (relative to the app root).",
    message: ({ file }: { file: string }) =>
      `The log file ${file} cannot be written. Make its directory writable, or give the logging plugin another file.`,
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof loggingErrors> {}
}
