import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { buildClientSchema, type GraphQLSchema, type IntrospectionQuery } from 'graphql';

/** The one Admin API version the stand-in answers; any other version in the URL is a 404. */
export const ADMIN_API_VERSION = '2026-10';

const INTROSPECTION_FILE = path.join('node_modules', '@shopify', 'dev-mcp', 'dist', 'data', `admin_${ADMIN_API_VERSION}.json.gz`);

function findIntrospectionFile(): string {
  // The package exports no file paths, so look for it in node_modules above this folder.
  let directory = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const candidate = path.join(directory, INTROSPECTION_FILE);
    if (fs.existsSync(candidate)) return candidate;
    const parent = path.dirname(directory);
    if (parent === directory) throw new Error(`${INTROSPECTION_FILE} not found: run npm ci (the devDependency @shopify/dev-mcp ships it)`);
    directory = parent;
  }
}

let adminSchema: GraphQLSchema | undefined;

/**
 * Shopify's own Admin API schema for 2026-10, from the introspection result that
 * `@shopify/dev-mcp` ships. Built once per process (about half a second) and shared by every
 * stand-in instance.
 */
export function loadAdminSchema(): GraphQLSchema {
  if (!adminSchema) {
    const introspection = JSON.parse(zlib.gunzipSync(fs.readFileSync(findIntrospectionFile())).toString('utf8')) as {
      data: IntrospectionQuery;
    };
    adminSchema = buildClientSchema(introspection.data);
  }
  return adminSchema;
}
