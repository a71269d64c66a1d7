// defineListSource(): a declaration mistake fails loudly, at declaration or on first use.
import * as assert from 'uvu/assert'
import { FwError } from 'fw'
import { defineListSource, fetchList, type ListSourceDefinition } from 'fw/plugins/list'
import { shopSuite } from './fixtures.js'

const test = shopSuite('list sources')

const base: ListSourceDefinition = {
  table: 'products',
  fields: ['id', 'name'],
  defaultFields: ['name'],
}

function refused(definition: ListSourceDefinition, message: RegExp): void {
  try {
    defineListSource(definition)
    assert.unreachable('the declaration should be refused')
  } catch (error) {
    assert.instance(error, FwError)
    assert.is((error as FwError).code, 'FW_ERR_LIST_SOURCE_INVALID')
    assert.match((error as FwError).message, message)
  }
}

test('refuses a declaration with both or neither of entity and table', () => {
  refused({ ...base, entity: 'Item' }, /exactly one of `entity` and `table`/)
  refused({ fields: ['id'], defaultFields: ['id'] }, /exactly one of `entity` and `table`/)
})

test('refuses names outside the identifier grammar', () => {
  refused({ ...base, table: 'Products' }, /not a lowercase identifier/)
  refused({ ...base, fields: ['id', 'name; drop'] }, /not a field name/)
  refused({ ...base, fields: ['id', 'a.b.c'] }, /not a field name/)
  refused({ ...base, searchable: ['"name"'] }, /not a field name/)
  refused({ ...base, primaryKey: '1id' }, /not a field name/)
  refused(
    {
      ...base,
      joins: [{ table: 'categories', as: 'Cat', on: ['cat.id', 'products.category_id'] }],
    },
    /not a lowercase identifier/,
  )
  refused(
    { ...base, joins: [{ table: 'categories', on: ['id', 'category_id'] }] },
    /two qualified columns/,
  )
})

test('refuses an empty whitelist or default set', () => {
  refused({ ...base, fields: [] }, /`fields` lists no field/)
  refused({ ...base, defaultFields: [] }, /`defaultFields` lists no field/)
})

test('refuses on first use what only the database can check', async ({ kernel }) => {
  const em = kernel.plugin('database').em()
  const cases: [ListSourceDefinition, RegExp][] = [
    [{ ...base, defaultFields: ['sku'] }, /default field 'sku' is not in `fields`/],
    [{ ...base, searchable: ['sku'] }, /searchable field 'sku' is not in `fields`/],
    [
      { ...base, fields: ['id', 'users.password_hash'] },
      /names 'users', which is neither the table nor a join/,
    ],
    [
      {
        ...base,
        fields: ['id', 'name', 'categories.name'],
        joins: [{ table: 'categories', on: ['categories.id', 'products.category_id'] }],
      },
      /'products.name' and 'categories.name' would both answer as 'name'/,
    ],
    [
      {
        ...base,
        fields: ['categories.id', 'name'],
        joins: [{ table: 'categories', on: ['categories.id', 'products.category_id'] }],
      },
      /would answer as 'id', the primary key's name/,
    ],
    [
      { ...base, joins: [{ table: 'categories', on: ['users.id', 'products.category_id'] }] },
      /refers to 'users'/,
    ],
    [
      { entity: 'Nothing', fields: ['id'], defaultFields: ['id'] },
      /entity is not one the database plugin knows/,
    ],
  ]
  for (const [definition, message] of cases) {
    const source = defineListSource(definition)
    try {
      await fetchList(em, source)
      assert.unreachable(String(message))
    } catch (error) {
      assert.instance(error, FwError)
      assert.match((error as FwError).message, message)
    }
  }
})

test('takes the table and primary key from an entity', async ({ kernel }) => {
  const source = defineListSource({ entity: 'Item', fields: ['sku'], defaultFields: ['sku'] })
  const { data, fields } = await fetchList(kernel.plugin('database').em(), source, { per_page: 1 })
  assert.equal(fields, ['sku'])
  assert.equal(data, [{ id: 33, sku: 'ODD-2' }])
})

test.run()
