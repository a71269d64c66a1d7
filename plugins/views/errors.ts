import { FwError } from 'fw'

// The views plugin's error codes (its README lists them): FW_ERR_VIEW_NOT_FOUND,
// FW_ERR_VIEW_RENDER_FAILED, FW_ERR_VIEW_THEME_INVALID. All are 500s: a setup mistake, not the
// caller's fault.

/** A template that no lookup path holds; the message lists every file tried, in order. */
export function viewNotFound(template: string, searched: readonly string[]): FwError {
  const where = searched.length > 0 ? searched.join(', ') : '(no template directories)'
  return new FwError(
    'FW_ERR_VIEW_NOT_FOUND',
    `Template '${template}' was not found. Searched: ${where}. Create one of these files, or add its directory with the views plugin's \`paths\` option or prependPath().`,
  )
}

/** A template that threw; the original error is the `cause`. */
export function renderFailed(template: string, file: string, cause: unknown): FwError {
  const reason = cause instanceof Error ? cause.message : String(cause)
  return new FwError(
    'FW_ERR_VIEW_RENDER_FAILED',
    `Template '${template}' (${file}) failed to render: ${reason}`,
    { cause },
  )
}

/** A theme name that would leave the `themes/` folder. */
export function invalidTheme(theme: string): FwError {
  return new FwError(
    'FW_ERR_VIEW_THEME_INVALID',
    `Theme '${theme}' is not a folder name. Name a folder under themes/ (letters, digits, '.', '_' or '-').`,
  )
}
