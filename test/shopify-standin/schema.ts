import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';

/** The one Admin API version the stand-in answers; any other version in the URL is a 404. */
export const ADMIN_API_VERSION = '2026-10';

/** Shopify's introspection of that version, vendored from `@shopify/dev-mcp` 1.16.0 (vendor/README.md says how and why). */
const INTROSPECTION_FILE = fileURLToPath(new URL(`vendor/admin_${ADMIN_API_VERSION}.json.gz`, import.meta.url));

let adminSchema: GraphQLSchema | undefined;

/**
 * Shopify's own Admin API schema for 2026-10, from the introspection result that
 * `@shopify/dev-mcp` ships (vendored). Built once per process (about half a second) and shared by every
 * stand-in instance.
 */
export function loadAdminSchema(): GraphQLSchema {
  if (!adminSchema) {
    const introspection = JSON.parse(zlib.gunzipSync(fs.readFileSync(INTROSPECTION_FILE)).toString('utf8')) as {
      data: IntrospectionQuery;
    };
    adminSchema = buildClientSchema(introspection.data);
  }
  return adminSchema;
}
