/**
 * The kernel, as the modules it is built from name it: `ctx.kernel`, the `boot`, `listen` and
 * `shutdown` hooks' argument, a plugin's `setup(kernel)`. It is the `Kernel` class of
 * kernel/kernel.ts, which fills this interface in by declaration merging; naming it here lets those
 * modules type the kernel without importing the class that imports them.
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type -- extended by declaration merging
export interface Kernel {}
