import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../support/databases.js';

const SCHEMA_FILE = fileURLToPath(new URL('../../src/db/schema.ts', import.meta.url));

/** Tables the migrations make that no code queries, so they have no type: why, for each. */
const UNTYPED_TABLES: Record<string, string> = {
  domain_canonicalization_report: "migration 0011's list of rows for support to settle by hand, read with SQL (docs/support.md)",
};

/** What a column holds, coarsely: enough to see a column typed as another kind than its migration made it. */
type Kind = 'string' | 'number' | 'boolean' | 'date' | 'array' | 'json';

interface ColumnShape {
  kinds: Kind[];
  /** `unknown` (a JSON value the code checks itself) admits null and everything else. */
  nullable: boolean | 'either';
}

/** Every table and column of the `Database` interface, as TypeScript sees the type a select returns. */
function typedColumns(): Map<string, Map<string, ColumnShape>> {
  const program = ts.createProgram([SCHEMA_FILE], { strict: true, noEmit: true, skipLibCheck: true, types: [] });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(SCHEMA_FILE)!;
  const database = source.statements.find(
    (statement): statement is ts.InterfaceDeclaration => ts.isInterfaceDeclaration(statement) && statement.name.text === 'Database',
  )!;
  const typeOf = (symbol: ts.Symbol) => checker.getTypeOfSymbolAtLocation(symbol, database);
  const kindOf = (type: ts.Type): Kind => {
    if (type.flags & (ts.TypeFlags.BooleanLike | ts.TypeFlags.Boolean)) return 'boolean';
    if (type.flags & ts.TypeFlags.StringLike) return 'string';
    if (type.flags & ts.TypeFlags.NumberLike) return 'number';
    if (checker.isArrayType(type)) return 'array';
    if (type.getSymbol()?.name === 'Date') return 'date';
    return 'json';
  };
  const tables = new Map<string, Map<string, ColumnShape>>();
  for (const table of checker.getPropertiesOfType(checker.getTypeAtLocation(database))) {
    const columns = new Map<string, ColumnShape>();
    for (const column of checker.getPropertiesOfType(typeOf(table))) {
      // Kysely's ColumnType<Select, Insert, Update> and Generated<T> carry the selected type in __select__.
      const declared = typeOf(column);
      const selected = declared.getProperty('__select__');
      const type = selected ? typeOf(selected) : declared;
      const members = type.isUnion() ? type.types : [type];
      const kinds = [...new Set(members.filter((member) => !(member.flags & ts.TypeFlags.Null)).map(kindOf))].sort();
      const nullable =
        type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any) ? 'either' : members.some((member) => member.flags & ts.TypeFlags.Null);
      columns.set(column.name, { kinds, nullable });
    }
    tables.set(table.name, columns);
  }
  return tables;
}

/** The kinds TypeScript may rightly give a PostgreSQL type, as node-postgres returns it. */
function kindsFor(dataType: string): Kind[] {
  if (dataType === 'boolean') return ['boolean'];
  if (dataType.startsWith('timestamp')) return ['date'];
  // node-postgres reads a date as a Date; the code may format it to a string first.
  if (dataType === 'date') return ['date', 'string'];
  if (dataType === 'ARRAY') return ['array'];
  if (['integer', 'smallint', 'real', 'double precision'].includes(dataType)) return ['number'];
  // bigint and numeric come back as strings (no precision lost); the code may parse them.
  if (dataType === 'bigint' || dataType === 'numeric') return ['number', 'string'];
  if (dataType === 'jsonb' || dataType === 'json') return ['array', 'boolean', 'json', 'number', 'string'];
  return ['string'];
}

describe('src/db/schema.ts and the migrated database', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(async () => {
    await database?.close();
  });

  it('type the same tables and columns, each nullable exactly when the column is, and of a kind its PostgreSQL type returns', async () => {
    const { rows } = await sql<{ table_name: string; column_name: string; is_nullable: 'YES' | 'NO'; data_type: string }>`
      select table_name, column_name, is_nullable, data_type from information_schema.columns
      where table_schema = 'public' and table_name not like 'kysely_migration%' and table_name <> all(${Object.keys(UNTYPED_TABLES)})
      order by table_name, ordinal_position`.execute(database.db);
    const migrated = new Map<string, Map<string, { nullable: boolean; dataType: string }>>();
    for (const row of rows) {
      const columns = migrated.get(row.table_name) ?? new Map();
      columns.set(row.column_name, { nullable: row.is_nullable === 'YES', dataType: row.data_type });
      migrated.set(row.table_name, columns);
    }
    const typed = typedColumns();
    expect(typed.size).toBeGreaterThan(40);
    expect([...typed.keys()].sort(), 'tables').toEqual([...migrated.keys()].sort());

    const drift: string[] = [];
    for (const [table, columns] of migrated) {
      const types = typed.get(table)!;
      for (const name of types.keys()) if (!columns.has(name)) drift.push(`${table}.${name}: typed, but no such column`);
      for (const [name, { nullable, dataType }] of columns) {
        const type = types.get(name);
        if (!type) drift.push(`${table}.${name}: a ${dataType} column with no type`);
        else if (type.nullable !== 'either' && type.nullable !== nullable)
          drift.push(`${table}.${name}: ${nullable ? 'nullable' : 'not null'} but typed otherwise`);
        else if (type.kinds.some((kind) => !kindsFor(dataType).includes(kind)))
          drift.push(`${table}.${name}: ${dataType} typed as ${type.kinds}`);
      }
    }
    expect(drift).toEqual([]);
  });
});
