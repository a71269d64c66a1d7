import { helper, ReferenceKind, type MikroORM } from '@mikro-orm/core'

/** An entity class may opt out of the full-fidelity shape: `static getDataFullFidelity = false`. */
interface FidelitySwitch {
  getDataFullFidelity?: boolean
}

function plain(value: unknown): unknown {
  if (value === undefined) return null
  if (value instanceof Date) return value.toISOString()
  return value
}

/**
 * A model's data export (README.md "API", `toData`): every column, NULLs included, booleans as
 * booleans, JSON columns decoded; a many-to-one as its foreign key; never MikroORM's internal state.
 * Own properties the schema does not declare (an "undeclared-property bag") are included too, and
 * a declared property wins over a bag entry of the same name. An entity class with
 * `static getDataFullFidelity = false` gets the older shape: only number and string values.
 */
export function toData(orm: MikroORM, entity: object): Record<string, unknown> {
  // The class's metadata from its prototype: `helper()` would build the entity's ORM state, which a
  // bound model that no EntityManager adopted yet does not need (bound-models.ts).
  const own = (entity as { __meta?: { className: string } }).__meta ?? helper(entity).__meta
  const meta = orm.getMetadata().find(own.className)
  if (meta === undefined) throw new TypeError('toData() needs an entity managed by the ORM.')
  const out: Record<string, unknown> = {}
  const source = entity as Record<string, unknown>
  for (const key of Object.keys(source)) {
    if (key.startsWith('_') || key in meta.properties) continue
    out[key] = plain(source[key])
  }
  for (const prop of meta.props) {
    if (prop.kind === ReferenceKind.SCALAR || prop.kind === ReferenceKind.EMBEDDED) {
      out[prop.name] = plain(source[prop.name])
    } else if (
      prop.kind === ReferenceKind.MANY_TO_ONE ||
      (prop.kind === ReferenceKind.ONE_TO_ONE && prop.owner)
    ) {
      const ref = source[prop.name]
      out[prop.fieldNames[0] ?? prop.name] =
        ref == null ? null : helper(ref as object).getPrimaryKey()
    }
  }
  if ((meta.class as FidelitySwitch).getDataFullFidelity === false) {
    for (const key of Object.keys(out)) {
      const v = out[key]
      if (typeof v !== 'number' && typeof v !== 'string') delete out[key]
    }
  }
  return out
}
