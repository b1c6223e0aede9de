/**
 * Writes docs/configuration.md from the environment schema (`npm run docs:config`).
 * test/architecture/configuration-doc.test.ts fails while the committed file differs from what
 * this renders, so a variable added, renamed or re-described in src/config-schema.ts reaches the
 * documentation in the same commit.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ENV_VARIABLES, ruleOf, type VariableSchema } from '../src/config-schema.js';

export const CONFIGURATION_DOC = fileURLToPath(new URL('../docs/configuration.md', import.meta.url));

const HEADER = `# Configuration

<!-- Written by \`npm run docs:config\` from src/config-schema.ts: change the schema, then run it. -->

Everything is read from the environment at start and validated against the TypeBox schema in
\`src/config-schema.ts\`. A blank value counts as unset. Every bad value is reported at once with
its own message (the "rule" column, after the variable's name), and the process exits with
status 1. A refusal never repeats a secret or a URL that may hold credentials.
`;

const FOOTER = `
Test-suite variables (read by the tests, not by the service): \`TEST_DATABASE_URL\` (default
\`postgres://postgres@127.0.0.1:5432/test\`; each test file gets a database of its own on that
server, cloned from the run's template or handed on, reset, from an earlier file of its worker)
and \`CHROMIUM_PATH\` (default \`/usr/bin/chromium-headless-shell\`).
`;

function defaultOf(schema: VariableSchema): string {
  if (schema.defaultText !== undefined) return schema.defaultText;
  if (schema.default === undefined) return 'unset';
  return `\`${Array.isArray(schema.default) ? schema.default.join(',') : String(schema.default)}\``;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderConfigurationDoc(): string {
  const rows = Object.entries(ENV_VARIABLES).map(
    ([name, schema]) =>
      `| \`${name}\` | ${cell(defaultOf(schema))} | ${cell(ruleOf(schema) ?? 'any text')} | ${cell(schema.description)} |`,
  );
  return `${HEADER}\n| variable | default | rule | meaning |\n|---|---|---|---|\n${rows.join('\n')}\n${FOOTER}`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(CONFIGURATION_DOC, renderConfigurationDoc());
  process.stdout.write(`wrote ${CONFIGURATION_DOC}\n`);
}
