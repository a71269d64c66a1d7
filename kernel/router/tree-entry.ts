import type { Route, RouteMatch } from './route.js'

/** A route as stored at a leaf, with the placeholder names its path binds, in order. */
export interface TreeEntry {
  readonly route: Route
  readonly names: readonly string[]
  /** The answer itself, shared and frozen, when the path binds no placeholder. */
  readonly match: RouteMatch | undefined
  /** Builds the answer from the placeholder values the walk wrote, in path order. */
  readonly answer: (values: readonly string[]) => RouteMatch
}

type Answer = (values: readonly string[]) => RouteMatch
type AnswerFactory = (route: Route) => Answer

// One generated factory per list of names, shared by every route binding the same names.
const factories = new Map<string, AnswerFactory>()

/** Creates a {@link TreeEntry}; its `answer` builds the params object with a fixed shape. */
export function createEntry(route: Route, names: readonly string[]): TreeEntry {
  if (names.length === 0) {
    const match: RouteMatch = Object.freeze({ route, params: Object.freeze({}) })
    return { route, names, match, answer: () => match }
  }
  const key = names.join('/')
  let factory = factories.get(key)
  if (factory === undefined) factories.set(key, (factory = answerFactory(names)))
  return { route, names, match: undefined, answer: factory(route) }
}

/**
 * Writes the params object as a literal with constant keys (as find-my-way does): V8 then
 * allocates it with one fixed shape, more than twice as fast as adding keys in a loop or through
 * computed keys. Names are identifiers checked by `parsePath`, and quoted besides. Where code
 * generation is switched off (`--disallow-code-generation-from-strings`) the loop is used instead.
 */
function answerFactory(names: readonly string[]): AnswerFactory {
  const fields = names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')
  try {
    return new Function(
      'route',
      `return (v) => ({ route, params: { ${fields} } })`,
    ) as AnswerFactory
  } catch {
    return (route) => (v) => {
      const params: Record<string, string> = {}
      for (let i = 0; i < names.length; i++) params[names[i] as string] = v[i] as string
      return { route, params }
    }
  }
}
