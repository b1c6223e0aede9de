import type { FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Config } from '../config.js';
import { OPENAPI_DOCUMENT_PATH } from './reference-page.js';

/**
 * The OpenAPI 3.1 document, generated from the route schemas: each documented route states its
 * operationId, who may call it (`security`; `[]` for the public ones), and a description and
 * schema for every status it answers. `redocly lint` with its recommended rules passes on it
 * (src/http/openapi.test.ts), and a client generated from it calls every operation
 * (test/openapi-client/).
 */
interface MediaType {
  schema?: { allOf?: unknown[] };
}
type Operation = { responses?: Record<string, { content?: Record<string, MediaType> }> };

/**
 * Error responses are written `allOf: [ErrorResponse]` so that @fastify/swagger keeps their
 * examples (src/http/schemas.ts, errorResponse); the document names the schema directly.
 */
function bareErrorReferences<T extends { paths?: object }>(document: T): T {
  for (const item of Object.values(document.paths ?? {}) as Array<Record<string, Operation>>) {
    for (const operation of Object.values(item)) {
      for (const response of Object.values(operation.responses ?? {})) {
        for (const media of Object.values(response.content ?? {})) {
          const schema = media.schema;
          if (schema?.allOf?.length === 1 && Object.keys(schema).length === 1) media.schema = schema.allOf[0] as MediaType['schema'];
        }
      }
    }
  }
  return document;
}

export async function registerOpenApi(app: FastifyInstance, config: Pick<Config, 'baseUrl'>): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Partner Collaboration Service API',
        version: '1.0.0',
        description:
          "Brands promote each other's offers; tech platforms display them and are credited with views and orders. " +
          'Errors are JSON objects with `error`, `message` and `requestId` (the OAuth endpoints answer RFC 6749 errors); ' +
          'every response carries `X-Request-Id`.',
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      servers: [{ url: config.baseUrl, description: 'This service' }],
      tags: [
        { name: 'brand', description: 'A brand reads its partnerships, campaigns and recommendations (API key or OAuth token).' },
        { name: 'offers', description: 'The partner offers a brand shows to shoppers, and the referral links they follow.' },
        { name: 'platform', description: 'A tech platform syncs the brands that use it (platform key).' },
        { name: 'oauth', description: 'OAuth 2 for apps acting for a brand (docs/oauth.md).' },
        { name: 'commerce', description: 'Calls from commerce platforms: order webhooks.' },
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-Api-Key', description: 'Brand API key (svc_test_… / svc_live_…)' },
          platformKey: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Api-Key',
            description: 'Platform key (svc_platform_test_… / svc_platform_live_…)',
          },
          bearer: { type: 'http', scheme: 'bearer', description: 'OAuth 2 access token (svc_at_…)' },
          oauthClient: {
            type: 'http',
            scheme: 'basic',
            description:
              'An OAuth client: client_id and client_secret by HTTP Basic, or as form fields; public clients send client_id only',
          },
          orderSignature: {
            type: 'apiKey',
            in: 'header',
            name: 'X-Svc-Signature',
            description: '`sha256=<hex>`: HMAC-SHA256 of `<X-Svc-Timestamp>.<body>` with the shared webhook secret (ORDERS_WEBHOOK_SECRET)',
          },
        },
      },
    },
    refResolver: { buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`) },
    transformObject: (documents) => ('openapiObject' in documents ? bareErrorReferences(documents.openapiObject) : documents.swaggerObject),
  });
  app.get(OPENAPI_DOCUMENT_PATH, { schema: { hide: true } }, async () => app.swagger());
}
