import { Command, Option } from 'clipanion'
import type { Route } from 'fw'
import type { FwContext } from '../context.js'
import { formatTable } from '../table.js'

/** One line of `fw route:list`, as `--json` prints it. */
export interface RouteRow {
  /** Declared methods in `HTTP_METHODS` order, `HEAD` added wherever `GET` is. */
  readonly methods: string[]
  /** The path as declared, without leading slash (`products/{id}`); `/` for the root. */
  readonly path: string
  readonly handler: string
  readonly name: string | null
  readonly middleware: string[]
}

/** What the rows take from fw's kernel, imported on use so that `fw --help` does not load it. */
export interface RouteRowsKernel {
  readonly handlerName: (route: Route) => string
  readonly HTTP_METHODS: readonly string[]
}

type Order = ReadonlyMap<string, number>

function displayMethods(methods: readonly string[], ORDER: Order): string[] {
  const set = new Set(methods)
  if (set.has('GET')) set.add('HEAD')
  return [...set].sort(
    (a, b) => (ORDER.get(a) ?? 99) - (ORDER.get(b) ?? 99) || (a < b ? -1 : a > b ? 1 : 0),
  )
}

function compareRows(a: RouteRow, b: RouteRow, ORDER: Order): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1
  const byFirst = (ORDER.get(a.methods[0]!) ?? 99) - (ORDER.get(b.methods[0]!) ?? 99)
  if (byFirst !== 0) return byFirst
  const am = a.methods.join('|')
  const bm = b.methods.join('|')
  return am < bm ? -1 : am > bm ? 1 : 0
}

/** The rows of `fw route:list`: one per declared route, sorted by path, then method. */
export function routeRows(routes: readonly Route[], fw: RouteRowsKernel): RouteRow[] {
  const { handlerName, HTTP_METHODS } = fw
  const ORDER = new Map<string, number>(HTTP_METHODS.map((m, i) => [m, i]))
  return routes
    .map((route) => ({
      methods: displayMethods(route.methods, ORDER),
      path:
        (route.path === '' ? '/' : route.path) +
        (route.query === undefined ? '' : `?${route.query}`),
      handler: handlerName(route),
      name: route.name ?? null,
      middleware: [...route.middleware],
    }))
    .sort((a, b) => compareRows(a, b, ORDER))
}

/** `fw route:list`: the app's routes as a table, or as JSON with `--json`. */
export class RouteListCommand extends Command<FwContext> {
  static override paths = [['route:list']]

  static override usage = Command.Usage({
    category: 'Routing',
    description: "List the app's routes",
    details: `
      Prints one row per declared route (and per route a plugin answers by its own routing, such as the admin area's controllers): its methods (\`HEAD\` is shown wherever \`GET\` is, since a GET route answers HEAD), its path as declared (\`products/{id}\`), its handler and its name. Rows are sorted by path, then method.

      With \`--json\`, prints an array of \`{methods, path, handler, name, middleware}\` instead.
    `,
    examples: [
      ['List the routes as a table', '$0 route:list'],
      ['List them as JSON', '$0 route:list --json'],
    ],
  })

  json = Option.Boolean('--json', false, { description: 'Print a JSON array instead of a table' })

  override async execute(): Promise<number> {
    const router = this.context.kernel.router
    const rows = routeRows([...router.routes(), ...router.listedRoutes()], await import('fw'))
    const out = this.context.stdout
    if (this.json) {
      out.write(`${JSON.stringify(rows, null, 2)}\n`)
      return 0
    }
    if (rows.length === 0) {
      out.write('No routes are declared.\n')
      return 0
    }
    const table = rows.map((r) => [r.methods.join('|'), r.path, r.handler, r.name ?? ''])
    out.write(formatTable(['Method', 'Path', 'Handler', 'Name'], table))
    return 0
  }
}
