import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every domain's schemas.ts: the TypeBox schemas the routes validate and answer with. */
const schemaFiles = fs
  .readdirSync(path.join(ROOT, 'src'), { withFileTypes: true, recursive: true })
  .filter((entry) => entry.isFile() && entry.name === 'schemas.ts')
  .map((entry) => path.join(entry.parentPath, entry.name));

/** A field that holds an amount of money: minor units, by the project's names for them. */
const MONEY_FIELD = /(Cents|Minor)$/;

type Schema = { type?: unknown; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; [key: string]: unknown };

/** The paths of objects in `schema` that carry a money field but no `currency` beside it. */
function moneyWithoutCurrency(schema: Schema, at: string, seen = new Set<Schema>()): string[] {
  if (!schema || typeof schema !== 'object' || seen.has(schema)) return [];
  seen.add(schema);
  const found: string[] = [];
  if (schema.properties) {
    const money = Object.keys(schema.properties).filter((field) => MONEY_FIELD.test(field));
    if (money.length > 0 && !('currency' in schema.properties)) found.push(`${at} {${money.join(', ')}}`);
    for (const [field, value] of Object.entries(schema.properties)) found.push(...moneyWithoutCurrency(value, `${at}.${field}`, seen));
  }
  if (schema.items) found.push(...moneyWithoutCurrency(schema.items, `${at}[]`, seen));
  for (const option of schema.anyOf ?? []) found.push(...moneyWithoutCurrency(option, at, seen));
  return found;
}

describe('money in every schema', () => {
  it('gives every amount of money its currency beside it, so no figure adds currencies together', async () => {
    expect(schemaFiles.length).toBeGreaterThan(8);
    const problems: string[] = [];
    let moneySchemas = 0;
    for (const file of schemaFiles) {
      const exported = (await import(file)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(exported)) {
        if (!value || typeof value !== 'object') continue;
        if (JSON.stringify(value).match(/"[A-Za-z]*(Cents|Minor)"/)) moneySchemas += 1;
        problems.push(...moneyWithoutCurrency(value as Schema, `${path.relative(ROOT, file)}:${name}`));
      }
    }
    expect(moneySchemas).toBeGreaterThan(5);
    expect(problems).toEqual([]);
  });
});
