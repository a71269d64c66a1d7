import { definePluginErrors, type CodesOf } from 'fw'

/** The admin plugin's error codes. */
export const adminErrors = definePluginErrors(
  'admin',
  {
    FW_ERR_ADMIN_PREFIX_INVALID: {
      when: '`admin.prefix` is not one path segment (it holds a `/`, `?`, `#`, a space, or is `.`/`..`).',
      fix: 'Set one segment, e.g. `"admin"`: the area is `/admin/…`.',
      message: ({ prefix }: { prefix: string }) =>
        `admin.prefix ${JSON.stringify(prefix)} is not one path segment: set e.g. "admin" (the area is then /admin/…).`,
    },
    FW_ERR_ADMIN_AREA_INVALID: {
      when: '`admin.area` is not a folder name (it holds a separator or is `.`/`..`).',
      fix: 'Name one folder under the app root, e.g. `"Admin"`.',
      message: ({ area }: { area: string }) =>
        `admin.area ${JSON.stringify(area)} is not a folder name: name one folder under the app root, e.g. "Admin".`,
    },
    FW_ERR_ADMIN_CONTROLLER_INVALID: {
      when: "A module in the area's controllers directory could not be imported, or exports no class.",
      fix: 'Export the controller class as the default export (`export default class UsersController {…}`); a `.ts` file needs a TypeScript loader, so a compiled app keeps `.js` files there.',
      message: ({ file, reason }: { file: string; reason: string }) =>
        `The area controller ${file} ${reason}. Export the controller class as the default export.`,
    },
  },
  'Raised when the plugin is set up (at boot).',
)

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof adminErrors> {}
}
