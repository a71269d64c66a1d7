import type { Kernel, MaintenanceStore } from 'fw'

/**
 * The store an app shares its maintenance state through (the database plugin's, on PostgreSQL),
 * once the app has booted; undefined when it has none or cannot boot (then the flag file, this
 * machine's, is all there is). `fw down` and `fw up` boot only for this: they must work when the
 * app cannot.
 */
export async function maintenanceStore(kernel: Kernel): Promise<MaintenanceStore | undefined> {
  try {
    await kernel.boot()
  } catch {
    return undefined
  }
  return kernel.maintenance.store
}

/** A failure's name and code, never its message (a driver's can quote the statement). */
export function briefly(error: unknown): string {
  if (!(error instanceof Error)) return String(error)
  const code = (error as { code?: unknown }).code
  return typeof code === 'string' ? `${error.name} ${code}` : error.name
}
