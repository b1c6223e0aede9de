import crypto from 'node:crypto';
import type { StandInCore, ResolverContext } from './core.js';
import { actualCost, requestedCost } from './cost.js';
import { prepare, run, type ShopifyErrorJson } from './executor.js';
import type { ShopRecord } from './model.js';
import { rootValue } from './resolvers.js';
import { ADMIN_API_VERSION, loadAdminSchema } from './schema.js';
import type { ThrottleStatus } from './throttle.js';

/**
 * POST /admin/api/{version}/graphql.json: the access token, then the document (parsed and
 * validated against Shopify's schema, never run when invalid), then its cost against the
 * shop's bucket, then execution. Every GraphQL answer is HTTP 200 with `extensions.cost`.
 */
export const INVALID_TOKEN_BODY = { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' };
const RATE_LIMITS_DOCUMENTATION = 'https://shopify.dev/api/usage/rate-limits';

function respond(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'x-shopify-api-version': ADMIN_API_VERSION,
      'x-request-id': crypto.randomUUID(),
    },
  });
}

interface Cost {
  requestedQueryCost: number;
  actualQueryCost: number | null;
  throttleStatus: ThrottleStatus;
}

const graphqlAnswer = (body: { data?: unknown; errors?: ShopifyErrorJson[] }, cost: Cost) => {
  const answer: Record<string, unknown> = {};
  if (body.data !== undefined) answer.data = body.data;
  if (body.errors?.length) answer.errors = body.errors;
  answer.extensions = { cost };
  return respond(200, answer);
};

export async function handleAdminGraphql(core: StandInCore, shop: ShopRecord, version: string, request: Request): Promise<Response> {
  if (version !== ADMIN_API_VERSION) return respond(404, { errors: 'Not Found' });
  if (request.method !== 'POST') return respond(405, { errors: 'Method Not Allowed' });
  const token = request.headers.get('x-shopify-access-token') ?? '';
  if (!core.tokens.accessTokenValid(shop.installation, token)) return respond(401, INVALID_TOKEN_BODY);

  let body: { query?: unknown; variables?: unknown; operationName?: unknown };
  try {
    body = JSON.parse(await request.text()) as typeof body;
  } catch {
    return respond(400, { errors: { query: 'Required parameter missing or invalid' } });
  }
  if (typeof body.query !== 'string' || !body.query.trim())
    return respond(400, { errors: { query: 'Required parameter missing or invalid' } });
  const variables = body.variables && typeof body.variables === 'object' ? (body.variables as Record<string, unknown>) : {};

  const usage = core.usage(shop);
  usage.adminApiCalls += 1;
  const bucket = core.bucketFor(shop);
  const schema = loadAdminSchema();
  const prepared = prepare(schema, body.query, typeof body.operationName === 'string' ? body.operationName : null);
  if (!prepared.ok)
    return graphqlAnswer({ errors: prepared.errors }, { requestedQueryCost: 0, actualQueryCost: 0, throttleStatus: bucket.status() });

  const costInput = { schema, operation: prepared.prepared.operation, fragments: prepared.prepared.fragments, variables };
  const requested = requestedCost(costInput);
  const maxCost = bucket.settings.maxQueryCost;
  if (requested > maxCost) {
    const message =
      `Query cost is ${requested}, which exceeds the single query max cost limit (${maxCost}).\n\n` +
      `See https://shopify.dev/concepts/about-apis/rate-limits for more information on how the\ncost of a query is calculated.\n\n` +
      `To query larger amounts of data with fewer limits, bulk operations should be used instead.\n` +
      `See https://shopify.dev/tutorials/perform-bulk-operations-with-admin-api for usage details.\n`;
    return graphqlAnswer(
      {
        errors: [
          { message, extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost, documentation: RATE_LIMITS_DOCUMENTATION } },
        ],
      },
      { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: bucket.status() },
    );
  }
  if (!bucket.take(requested)) {
    usage.throttledCalls += 1;
    return graphqlAnswer(
      { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: RATE_LIMITS_DOCUMENTATION } }] },
      { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: bucket.status() },
    );
  }

  const context: ResolverContext = { core, shop, scopes: new Set(shop.installation.scopes), bulk: false };
  const outcome = await run(schema, prepared.prepared, rootValue(context, schema), context, variables);
  const actual = outcome.data ? Math.min(requested, actualCost(costInput, outcome.data)) : 0;
  bucket.refund(requested - actual);
  usage.pointsSpent += actual;
  return graphqlAnswer(outcome, { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: bucket.status() });
}
