import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, type OpenAPI3 } from 'openapi-typescript';
import { buildApp } from '../../src/app.js';
import { createTestDatabase } from '../support/databases.js';
import { testConfig } from '../support/harness.js';

/** The client's types, generated from the OpenAPI document and committed beside the calls that use them. */
export const CLIENT_TYPES_FILE = fileURLToPath(new URL('./api.d.ts', import.meta.url));
/** The calls the client makes: one for every operation of the document. */
export const CLIENT_CALLS_FILE = fileURLToPath(new URL('./calls.ts', import.meta.url));

const HEADER = '// Generated from /v1/openapi.json by openapi-typescript: `npm run openapi:types`. Do not edit.\n\n';

/** The types openapi-typescript generates for a document. */
export async function clientTypes(document: unknown): Promise<string> {
  return `${HEADER}${astToString(await openapiTS(document as OpenAPI3))}`;
}

/** The document of an app with the test settings (what the client test reads), on an empty PGlite. */
export async function testDocument(): Promise<unknown> {
  const database = await createTestDatabase('pglite');
  const app = await buildApp({ config: testConfig(), database });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await database.close();
  }
}
