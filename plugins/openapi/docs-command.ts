import { Command, Option } from 'fw/cli'
import type { CommandContext } from 'fw'
import { FwError } from 'fw'
import { writeDocument } from './generate.js'

/** `fw api:docs`: writes the OpenAPI 3.0.3 document of the app's API routes. */
export class ApiDocsCommand extends Command<CommandContext> {
  static override paths = [['api:docs']]
  static override usage = Command.Usage({
    category: 'API',
    description: 'Write the OpenAPI document of the API routes',
    details: `
      Builds an OpenAPI 3.0.3 document from the routes the app declares whose handlers are defined under the controllers directory (default: the first of \`api/controllers\` and \`controllers\` in the app root) and whose names start with the namespace (default: derived from the directory, \`api/controllers/v1\` → \`v1.\`). Paths and \`{param}\` parameters, methods, \`operationId\` (the route name), summary and description (the handler's doc comment), security (\`apiKey\` behind the API-key middleware, \`bearerAuth\` for permissions or an authenticating middleware), tags (the controller) and the request and response schemas routes declare with \`.schema()\`.

      Writes it to \`api/openapi.json\` under the first of \`public\`, \`www\`, \`html\`, \`web\` in the app root (\`public\` is created if none exists), or to \`--output\`. \`--overrides\` names a JSON file deep-merged over the document: objects merge key by key, scalars and arrays replace.
    `,
    examples: [
      ['Write the document with the defaults', '$0 api:docs'],
      [
        'Document only the v2 routes, titled and versioned',
        '$0 api:docs --namespace=v2. --title="Shop API" --api-version=2.0.0',
      ],
      [
        'Add servers and hand-written examples',
        '$0 api:docs --server=https://api.example.com --overrides=api/overrides.json',
      ],
      ['Write it elsewhere', '$0 api:docs --output=build/openapi.json'],
    ],
  })

  controllers = Option.String('--controllers', {
    description: 'The controllers directory, relative to the app root',
  })
  namespace = Option.String('--namespace', { description: 'Keep routes whose name starts with it' })
  output = Option.String('--output', { description: 'The document file to write' })
  title = Option.String('--title', { description: "info.title (default: the app's name)" })
  apiVersion = Option.String('--api-version', { description: 'info.version (default: 1.0.0)' })
  server = Option.Array('--server', { description: 'A servers[].url; repeat for more' })
  overrides = Option.String('--overrides', {
    description: 'A JSON file deep-merged over the generated document',
  })

  async execute(): Promise<number> {
    const { stdout, stderr, kernel } = this.context
    try {
      const generated = await kernel.plugin('openapi').generate({
        controllers: this.controllers,
        namespace: this.namespace,
        output: this.output,
        title: this.title,
        apiVersion: this.apiVersion,
        servers: this.server,
        overrides: this.overrides,
      })
      writeDocument(generated)
      stdout.write(
        `Scanned ${generated.dir} (namespace ${generated.namespace === '' ? '*' : generated.namespace})\n` +
          `Wrote ${generated.paths} paths, ${generated.operations} operations to ${generated.output}\n`,
      )
      const richer = generated.richerSibling
      if (richer !== undefined)
        stderr.write(
          `Warning: ${richer.dir} holds more operations (${richer.operations}) than ${generated.dir}; pass --controllers=${richer.dir} to document it.\n`,
        )
      return 0
    } catch (error) {
      if (!(error instanceof FwError)) throw error
      stderr.write(`${error.message}\n`)
      return 1
    }
  }
}
