import { suite } from 'uvu'
import * as assert from 'uvu/assert'
import { EntitySchema } from '@mikro-orm/core'
import { deferEntity } from 'fw/plugins/database'
import { classNameOf, schemaOf } from '../../../plugins/database/deferred-entity.js'
import { Gadget, GadgetSchema } from './fixtures.js'

const test = suite('deferEntity')

class Widget {
  id!: number
}

const widgetSchema = () =>
  new EntitySchema<Widget>({
    class: Widget,
    tableName: 'widgets',
    properties: { id: { type: 'integer', primary: true } },
  })

test('names the entity without building its schema', () => {
  let builds = 0
  const entity = deferEntity(Widget, () => (builds++, widgetSchema()))
  assert.is(classNameOf(entity), 'Widget')
  assert.is(builds, 0)
})

test('builds the schema once, on first need, and hands the same object after', () => {
  let builds = 0
  const entity = deferEntity(Widget, () => (builds++, widgetSchema()))
  const first = schemaOf(entity)
  assert.instance(first, EntitySchema)
  assert.is(first.meta.className, 'Widget')
  assert.is(schemaOf(entity), first)
  assert.is(builds, 1)
})

test('takes a schema declared as is unchanged', () => {
  assert.is(classNameOf(GadgetSchema), 'Gadget')
  assert.is(schemaOf(GadgetSchema), GadgetSchema)
})

test('refuses a build that makes the schema of another class', () => {
  const entity = deferEntity(Gadget, widgetSchema)
  assert.throws(() => entity.schema(), /deferEntity\(Gadget\) built the schema of 'Widget'/)
})

test.run()
