import { Command } from 'clipanion'
import { builtinCommand } from '../builtin-command.js'
import { briefly, maintenanceStore } from './maintenance-store.js'

/** `fw up`: ends maintenance mode by removing the flag file `fw down` wrote. */
export class UpCommand extends builtinCommand('up', { bootsApp: false }) {
  static override usage = Command.Usage({
    category: 'Maintenance',
    description: 'Bring the app out of maintenance mode',
    details: `
      Removes the flag file \`var/MAINTENANCE\` under the app root and, on PostgreSQL, the state \`fw down\` stored in the database (every instance comes back); says whether the app was down. Running instances answer normally again within a second.
    `,
    examples: [['Bring the app back', '$0 up']],
  })

  override async execute(): Promise<number> {
    const { kernel, stdout, stderr } = this.context
    const { leaveMaintenance, maintenanceFile } = await import('fw')
    const was = leaveMaintenance(kernel.root)
    const store = await maintenanceStore(kernel)
    if (store !== undefined) {
      try {
        await store.write(undefined)
        stdout.write(`The app is up again on every instance (state in ${store.description}).\n`)
        return 0
      } catch (error) {
        stderr.write(
          `fw: the shared maintenance state could not be cleared (${briefly(error)}); instances that read it stay down.\n`,
        )
        return 1
      } finally {
        await kernel.close()
      }
    }
    stdout.write(
      was
        ? 'The app is up again.\n'
        : `The app was not down (no ${maintenanceFile(kernel.root)}); nothing to do.\n`,
    )
    return 0
  }
}
