import fs from 'node:fs';
import path from 'node:path';
import { Kind, parse, validate, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { requestedCost } from '../../../test/shopify-standin/cost.js';
import { ADMIN_API_VERSION, loadAdminSchema } from '../../../test/shopify-standin/schema.js';
import { MAX_SINGLE_QUERY_COST } from '../../../test/shopify-standin/throttle.js';
import { DEFAULT_SHOPIFY_API_VERSION } from '../../config.js';
import * as documents from './documents.js';

const FOLDER = import.meta.dirname;

/** Every `#graphql` template literal in the adapter's source (a document: it has a selection), with the file it is in. */
function graphqlLiterals(): Array<{ file: string; text: string }> {
  return fs
    .readdirSync(FOLDER)
    .filter((name) => /\.tsx?$/.test(name) && !name.endsWith('.test.ts'))
    .flatMap((name) =>
      [...fs.readFileSync(path.join(FOLDER, name), 'utf8').matchAll(/`#graphql([^`]*\{[^`]*)`/g)].map((match) => ({
        file: name,
        text: match[1]!,
      })),
    );
}

describe('the GraphQL documents of the Shopify adapter', () => {
  const schema = loadAdminSchema();
  const literals = graphqlLiterals();

  it('are the documents module’s, written as #graphql literals without interpolation, nowhere else', () => {
    expect(DEFAULT_SHOPIFY_API_VERSION).toBe(ADMIN_API_VERSION);
    expect(literals.length).toBe(Object.keys(documents).length);
    expect(literals.every((literal) => literal.file === 'documents.ts')).toBe(true);
    for (const literal of literals) expect(literal.text).not.toContain('${');
  });

  it.each(Object.entries(documents))(
    '%s validates against the Admin API schema (2026-10) and costs at most 1,000 points',
    (name, document) => {
      const parsed = parse(document);
      expect(validate(schema, parsed).map((error) => error.message)).toEqual([]);
      const fragments = new Map(
        parsed.definitions
          .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
          .map((fragment) => [fragment.name.value, fragment]),
      );
      for (const operation of parsed.definitions.filter(
        (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
      )) {
        // Bulk queries run without the limit (Shopify pages them itself); every other document fits in one request.
        if (name.startsWith('BULK_') && name !== 'BULK_OPERATION') continue;
        expect(requestedCost({ schema, operation, fragments, variables: {} })).toBeLessThanOrEqual(MAX_SINGLE_QUERY_COST);
      }
    },
  );
});
