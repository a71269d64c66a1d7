import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { Command, Option } from 'fw/cli'
import { FwError, type CommandContext } from 'fw'
import type { OpenAPIObject } from 'openapi3-ts/oas30'
import { renderClient } from './client.js'
import { openapiErrors } from './errors.js'
import { defaultOutput } from './generate.js'

function readDocument(file: string): OpenAPIObject {
  let parsed: unknown
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'it does not exist'
        : error instanceof SyntaxError
          ? `it is not valid JSON (${error.message})`
          : (error as Error).message
    throw openapiErrors.error('FW_ERR_OPENAPI_INPUT', { file, reason })
  }
  const doc = parsed as Partial<OpenAPIObject> | null
  if (
    typeof doc !== 'object' ||
    doc === null ||
    typeof doc.openapi !== 'string' ||
    typeof doc.paths !== 'object'
  )
    throw openapiErrors.error('FW_ERR_OPENAPI_INPUT', {
      file,
      reason: 'it has no `openapi` version or no `paths`',
    })
  return doc as OpenAPIObject
}

/** `fw create:api-client`: a typed fetch client of the API document, one function per operation. */
export class CreateApiClientCommand extends Command<CommandContext> {
  static override paths = [['create:api-client']]
  static override usage = Command.Usage({
    category: 'API',
    description: 'Write a typed client of the API document',
    details: `
      Reads the OpenAPI document (default: the one \`fw api:docs\` writes) and writes \`api-client.js\` (one exported async function per operation, named after its \`operationId\`: \`v1.products.show\` → \`v1ProductsShow\`, sending with \`fetch\` to a base URL set by \`configure()\`) and \`api-client.d.ts\` (parameters, bodies and responses typed from the schemas; \`any\` where the document has no type). Both files are overwritten on every run.
    `,
    examples: [
      ['Write the client next to the document', '$0 create:api-client'],
      ['Write it into the front end', '$0 create:api-client --output=web/src/api'],
      ['From another document', '$0 create:api-client --input=build/openapi.json --output=client'],
    ],
  })

  input = Option.String('--input', { description: 'The OpenAPI document to read' })
  output = Option.String('--output', {
    description: "The folder to write into (default: the document's)",
  })

  async execute(): Promise<number> {
    const { stdout, stderr, kernel } = this.context
    const input =
      this.input === undefined ? defaultOutput(kernel.root) : resolve(kernel.root, this.input)
    const folder = this.output === undefined ? dirname(input) : resolve(kernel.root, this.output)
    try {
      const { js, dts, operations } = renderClient(readDocument(input))
      try {
        mkdirSync(folder, { recursive: true })
        writeFileSync(join(folder, 'api-client.js'), js)
        writeFileSync(join(folder, 'api-client.d.ts'), dts)
      } catch (error) {
        throw openapiErrors.error('FW_ERR_OPENAPI_OUTPUT', {
          file: folder,
          reason: (error as Error).message,
        })
      }
      stdout.write(
        `Wrote ${operations} operations to ${join(folder, 'api-client.js')} and api-client.d.ts\n`,
      )
      return 0
    } catch (error) {
      if (!(error instanceof FwError)) throw error
      stderr.write(`${error.message}\n`)
      return 1
    }
  }
}
