// Loaded with `node --import` by test/plugins/database/driver-loading.test.ts: registers a resolve
// hook that appends every module URL resolved under node_modules, one a line, to the file named by
// `FW_REPORT_IMPORTS` (the hooks run on a thread of their own, so a file is the simplest channel
// that is complete when the process exits). It sees ES modules as well as CommonJS ones.
import { register } from 'node:module'

register('./resolve-hook.mjs', import.meta.url)
