// pg-boss, an optional peer dependency of fw: an app that runs no jobs neither installs nor loads
// it. Loaded when the queue opens or its tables are migrated; a missing one fails that with
// FW_ERR_PACKAGE_MISSING naming the package to install.
import { importOptional } from 'fw'
import type PgBoss from 'pg-boss'

let loading: Promise<typeof PgBoss> | undefined

/** pg-boss's class, loaded once per process. */
export function loadPgBoss(): Promise<typeof PgBoss> {
  loading ??= importOptional<{ default: typeof PgBoss }>('pg-boss', 'the jobs plugin').then(
    (module) => module.default,
  )
  // A failed load is tried again next time (the package may be installed by then).
  loading.catch(() => (loading = undefined))
  return loading
}
