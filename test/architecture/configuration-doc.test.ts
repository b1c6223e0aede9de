import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_DOC, renderConfigurationDoc } from '../../scripts/config-docs.js';
import { ENV_VARIABLES } from '../../src/config-schema.js';

describe('docs/configuration.md', () => {
  it('is what the environment schema writes (npm run docs:config)', () => {
    expect(fs.readFileSync(CONFIGURATION_DOC, 'utf8'), 'docs/configuration.md is stale: run npm run docs:config').toBe(
      renderConfigurationDoc(),
    );
  });

  it('has one row per variable of the schema, each with its default, rule and description', () => {
    const rows = renderConfigurationDoc()
      .split('\n')
      .filter((line) => /^\| `[A-Z_]+` \|/.test(line));
    expect(rows.map((row) => row.split('`')[1])).toEqual(Object.keys(ENV_VARIABLES));
    expect(rows.find((row) => row.startsWith('| `PORT` |'))).toBe(
      '| `PORT` | `3000` | must be an integer from 0 to 65535 | HTTP port (0 picks a free one) |',
    );
    expect(rows.find((row) => row.startsWith('| `SHOPIFY_SCOPES` |'))).toMatch(
      /^\| `SHOPIFY_SCOPES` \| `read_products,read_orders,write_discounts` \|/,
    );
  });
});
