/**
 * A reader for the part of TOML that shopify.app.toml uses: `key = value` with basic strings,
 * booleans and arrays of them (over several lines too), `[table]` and `[[array.of.tables]]`
 * headers, and comments. No TOML parser is among the project's packages; anything outside this
 * subset (literal or multi-line strings, numbers, dates, inline tables, dotted keys) is refused with
 * its line rather than read wrong, so a richer file fails the test instead of passing it.
 */
export type TomlValue = string | boolean | TomlValue[] | TomlTable;
export interface TomlTable {
  [key: string]: TomlValue;
}

const KEY = /^[A-Za-z0-9_-]+$/;

export function readToml(text: string): TomlTable {
  const root: TomlTable = {};
  let table = root;
  const lines = text.split('\n');
  for (let index = 0; index < lines.length; index++) {
    const where = `line ${index + 1}`;
    let line = withoutComment(lines[index]!).trim();
    if (line === '') continue;
    const arrayHeader = /^\[\[([^\]]+)\]\]$/.exec(line);
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (arrayHeader || header) {
      const path = (arrayHeader ?? header)![1]!.split('.').map((part) => part.trim());
      if (!path.every((part) => KEY.test(part))) throw new Error(`${where}: unsupported table name`);
      const parent = descend(root, path.slice(0, -1), where);
      const last = path.at(-1)!;
      if (arrayHeader) {
        parent[last] ??= [];
        const list = parent[last];
        if (!Array.isArray(list)) throw new Error(`${where}: ${last} is not an array of tables`);
        table = {};
        list.push(table);
      } else {
        if (parent[last] !== undefined) throw new Error(`${where}: table ${last} defined twice`);
        table = {};
        parent[last] = table;
      }
      continue;
    }
    const assignment = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (!assignment) throw new Error(`${where}: unsupported syntax`);
    let raw = assignment[2]!;
    // An array may run over several lines until its brackets close.
    while (raw.startsWith('[') && !closes(raw)) {
      index++;
      if (index >= lines.length) throw new Error(`${where}: unterminated array`);
      line = withoutComment(lines[index]!).trim();
      raw += ` ${line}`;
    }
    if (table[assignment[1]!] !== undefined) throw new Error(`${where}: key ${assignment[1]} defined twice`);
    table[assignment[1]!] = value(raw.trim(), where);
  }
  return root;
}

function descend(root: TomlTable, path: string[], where: string): TomlTable {
  let table = root;
  for (const part of path) {
    table[part] ??= {};
    const next = table[part];
    const target = Array.isArray(next) ? next.at(-1) : next;
    if (typeof target !== 'object' || target === null || Array.isArray(target)) throw new Error(`${where}: ${part} is not a table`);
    table = target;
  }
  return table;
}

function value(raw: string, where: string): TomlValue {
  if (raw === 'true') return true;
  if (raw === 'false') return false;
  if (raw.startsWith('"')) {
    const match = /^"((?:[^"\\]|\\["\\])*)"$/.exec(raw);
    if (!match) throw new Error(`${where}: unsupported string ${raw}`);
    return match[1]!.replace(/\\(["\\])/g, '$1');
  }
  if (raw.startsWith('[') && raw.endsWith(']')) {
    const items: string[] = [];
    let item = '';
    let inString = false;
    for (let index = 1; index < raw.length - 1; index++) {
      const char = raw[index]!;
      if (char === ',' && !inString) {
        items.push(item.trim());
        item = '';
        continue;
      }
      if (char === '[' && !inString) throw new Error(`${where}: nested arrays are not supported`);
      if (char === '"') inString = !inString;
      item += char;
      if (char === '\\' && inString) item += raw[++index];
    }
    if (item.trim() !== '') items.push(item.trim());
    return items.map((entry) => value(entry, where));
  }
  throw new Error(`${where}: unsupported value ${raw}`);
}

/** The line without a `#` comment (a `#` inside a string stays). */
function withoutComment(line: string): string {
  let inString = false;
  for (let index = 0; index < line.length; index++) {
    const char = line[index];
    if (char === '\\' && inString) index++;
    else if (char === '"') inString = !inString;
    else if (char === '#' && !inString) return line.slice(0, index);
  }
  return line;
}

function closes(raw: string): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < raw.length; index++) {
    const char = raw[index];
    if (char === '\\' && inString) index++;
    else if (char === '"') inString = !inString;
    else if (!inString && char === '[') depth++;
    else if (!inString && char === ']') depth--;
  }
  return depth === 0;
}
