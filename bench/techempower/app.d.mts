import type { Kernel } from 'fw'

/** The fw TechEmpower app; `migrate` creates the schema and data when it starts listening. */
export declare function createTechEmpowerApp(options?: {
  env?: NodeJS.ProcessEnv
  url?: string
  migrate?: boolean
}): Kernel
