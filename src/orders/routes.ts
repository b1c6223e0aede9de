import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError, badRequest, unauthorized } from '../http/errors.js';
import { OrderOutcome, OrderWebhookBody } from './schemas.js';
import { receiveOrder } from './service.js';
import { checkOrderSignature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.js';
import type { Runtime } from '../composition.js';

const errorRef = Type.Ref('ErrorResponse');

const rawBodies = new WeakMap<FastifyRequest, string>();

const SIGNATURE_MESSAGES = {
  missing: `${TIMESTAMP_HEADER} and ${SIGNATURE_HEADER} headers are required`,
  stale: `${TIMESTAMP_HEADER} is outside the accepted window`,
  mismatch: `${SIGNATURE_HEADER} does not match the body`,
} as const;

/** The commerce platform's order webhook: signed bodies only, each order counted once. */
export const orderRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = runtime;

  // The signature covers the exact bytes sent, so this scope keeps the raw body beside the parsed one.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = String(body);
    rawBodies.set(request, text);
    try {
      done(null, JSON.parse(text));
    } catch {
      done(badRequest('body is not valid JSON'), undefined);
    }
  });

  app.post(
    '/webhooks/commerce/orders',
    {
      preValidation: async (request) => {
        const secret = config.orders.webhookSecret;
        if (!secret) throw new ApiError(503, 'service_unavailable', 'the order webhook is not configured on this host');
        const header = (name: string) => {
          const value = request.headers[name];
          return typeof value === 'string' ? value : undefined;
        };
        const problem = checkOrderSignature(
          secret,
          config.orders.webhookToleranceSeconds,
          { timestamp: header(TIMESTAMP_HEADER), signature: header(SIGNATURE_HEADER) },
          rawBodies.get(request) ?? '',
          new Date(),
        );
        if (problem) throw unauthorized(SIGNATURE_MESSAGES[problem]);
      },
      schema: {
        summary: 'Deliver an order (commerce platform webhook)',
        description:
          'Body signed with HMAC-SHA256 over `<timestamp>.<body>` using the shared secret: ' +
          '`X-Svc-Timestamp: <unix seconds>`, `X-Svc-Signature: sha256=<hex>`. An order id delivered again is counted once.',
        tags: ['commerce'],
        body: OrderWebhookBody,
        response: { 200: OrderOutcome, 400: errorRef, 401: errorRef, 503: errorRef },
      },
    },
    async (request) => {
      const body = request.body;
      return receiveOrder(
        { db, commissionBasisPoints: config.orders.commissionBasisPoints },
        { ...body, placedAt: new Date(body.placedAt) },
      );
    },
  );
};
