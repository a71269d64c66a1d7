import { definePluginErrors, type CodesOf } from 'fw'

/** The api plugin's error codes. */
export const apiErrors = definePluginErrors('api', {
  FW_ERR_API_NO_KEY_CHECK: {
    when: 'At boot: the api plugin has no way to check API keys: no `checkKey` option and no database plugin (whose `applications` table is the default).',
    fix: 'Register the database plugin, or pass `{ checkKey }` to the api plugin.',
    message:
      "The api plugin checks API keys against the database's applications table by default, and the database plugin is not registered. Register it, or pass { checkKey } to the api plugin.",
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof apiErrors> {}
}
