/** The fortunes of the `fortune` table, by id. */
export declare const FORTUNES: readonly (readonly [number, string])[]
/** The fortune every app adds at request time, with id 0. */
export declare const ADDED_FORTUNE: string
/** The statements creating and filling both tables, in order. */
export declare const SCHEMA_STATEMENTS: readonly string[]
