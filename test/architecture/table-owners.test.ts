import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sourceFiles(file);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [file] : [];
  });
}

/** Every table of the Database interface (src/db/schema.ts): `name: SomethingTable;` lines. */
const TABLES = [...read('src/db/schema.ts').matchAll(/^\s+([a-z_]+): [A-Za-z]+Table;$/gm)].map((match) => match[1]!);

/** The owner of each table as docs/architecture.md states it: the folder in the row's first cell (remarks in parentheses aside). */
function documentedOwners(): Map<string, string> {
  const owners = new Map<string, string>();
  for (const row of read('docs/architecture.md').matchAll(/^\| `(src\/[a-z]+(?:\/[a-z]+)?)\/` \| (.+) \|$/gm)) {
    for (const table of row[2]!.replace(/\(.*?\)/g, '').matchAll(/`([a-z_]+)`/g)) {
      expect(owners.get(table[1]!), `${table[1]} has two owners`).toBeUndefined();
      owners.set(table[1]!, row[1]!);
    }
  }
  return owners;
}

/** Statements that write the table: the query builder's insertInto/updateTable/deleteFrom, or SQL text. */
const writes = (table: string) =>
  new RegExp(`(insertInto|updateTable|deleteFrom)\\('${table}'|\\b(insert into|update|delete from) ${table}\\b(?!\\s*\\()`, 'i');

describe('one owner per table', () => {
  it('names an owner for every table in docs/architecture.md, and only tables that exist', () => {
    const owners = documentedOwners();
    expect(TABLES.length).toBeGreaterThan(40);
    expect([...owners.keys()].sort()).toEqual([...TABLES].sort());
  });

  it('gives every owner the domain shape: its SQL in dal.ts, its rules (what others call) in service.ts', () => {
    for (const folder of new Set(documentedOwners().values())) {
      for (const file of ['dal.ts', 'service.ts']) expect(fs.existsSync(path.join(ROOT, folder, file)), `${folder}/${file}`).toBe(true);
    }
  });

  it("writes each table from its owner's folder only (migrations aside)", () => {
    const owners = documentedOwners();
    const files = sourceFiles('src').map((file) => ({ file, text: read(file) }));
    const strangers = TABLES.flatMap((table) =>
      files
        .filter(({ file, text }) => writes(table).test(text) && !file.startsWith(`${owners.get(table)}/`))
        .map(({ file }) => `${table} in ${file}`),
    );
    expect(strangers).toEqual([]);
  });
});
