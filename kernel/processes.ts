// Whether another process still runs: what a lock file or a build folder naming its owner's pid
// is checked against before it is taken over or removed. Imports nothing, so the CLI uses it too.

/**
 * Whether a process with this pid runs on this machine: signal 0 reaches it, or it runs as
 * another user (`EPERM`). Guarded by test/kernel/processes.test.ts.
 *
 * @example
 * if (!isProcessRunning(pidInLockFile)) takeOver(lockFile)
 */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
