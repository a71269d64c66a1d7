import { definePluginErrors, messageOf, type CodesOf, type FwError } from 'fw'

/** The views plugin's error codes. All are 500s: a setup mistake, not the caller's fault. */
export const viewErrors = definePluginErrors('views', {
  FW_ERR_VIEW_NOT_FOUND: {
    when: 'A handler returned `view(name)` (or a template included a partial or layout) that no template directory holds.',
    fix: 'The message lists every file tried: add the template, or prepend its directory with `prependPath()`.',
    message: ({ template, searched }: { template: string; searched: readonly string[] }) =>
      `Template '${template}' was not found. Searched: ${searched.length > 0 ? searched.join(', ') : '(no template directories)'}. Create one of these files, or add its directory with the views plugin's \`paths\` option or prependPath().`,
  },
  FW_ERR_VIEW_RENDER_FAILED: {
    when: 'A template threw while rendering (syntax or runtime).',
    fix: 'The original error is the `cause`; development mode adds the template line.',
    message: ({ template, file, reason }: { template: string; file: string; reason: string }) =>
      `Template '${template}' (${file}) failed to render: ${reason}`,
  },
  FW_ERR_VIEW_THEME_INVALID: {
    when: 'A theme (option or `ctx.state.theme`) is not a single folder name.',
    fix: 'Use a plain name such as `dark`.',
    message: ({ theme }: { theme: string }) =>
      `Theme '${theme}' is not a folder name. Name a folder under themes/ (letters, digits, '.', '_' or '-').`,
  },
})

declare module 'fw' {
  interface ErrorCodes extends CodesOf<typeof viewErrors> {}
}

/** A template that no lookup path holds; the message lists every file tried, in order. */
export function viewNotFound(template: string, searched: readonly string[]): FwError {
  return viewErrors.error('FW_ERR_VIEW_NOT_FOUND', { template, searched })
}

/** A template that threw; the original error is the `cause`. */
export function renderFailed(template: string, file: string, cause: unknown): FwError {
  const reason = messageOf(cause)
  return viewErrors.error('FW_ERR_VIEW_RENDER_FAILED', { template, file, reason }, { cause })
}

/** A theme name that would leave the `themes/` folder. */
export function invalidTheme(theme: string): FwError {
  return viewErrors.error('FW_ERR_VIEW_THEME_INVALID', { theme })
}
