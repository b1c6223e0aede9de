import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ApiError, unauthorized } from '../http/errors.js';
import { acceptSignedJson, type SignatureCheck, signedBodyOf } from '../http/signed-body.js';
import { OrderEventBody, OrderEventOutcome, OrderOutcome, OrderWebhookBody, OrderWebhookHeaders } from './schemas.js';
import { receiveOrder, recordOrderEvent } from './service.js';
import { beginOrderSignature, SIGNATURE_HEADER, TIMESTAMP_HEADER } from './signature.js';
import { described, errorResponse, RATE_LIMITED } from '../http/schemas.js';
import type { Runtime } from '../composition.js';

const SIGNATURE_MESSAGES = {
  missing: `${TIMESTAMP_HEADER} and ${SIGNATURE_HEADER} headers are required`,
  stale: `${TIMESTAMP_HEADER} is outside the accepted window`,
  mismatch: `${SIGNATURE_HEADER} does not match the body`,
} as const;

/** The commerce platform's order webhook: signed bodies only, each order counted once. */
export const orderRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = runtime;

  /** The signature's check for a request, from its headers: refused at once (401, 503) when they already say so. */
  const beginCheck = (request: FastifyRequest): SignatureCheck => {
    const secret = config.orders.webhookSecret;
    if (!secret) throw new ApiError(503, 'service_unavailable', 'the order webhook is not configured on this host');
    const header = (name: string) => {
      const value = request.headers[name];
      return typeof value === 'string' ? value : undefined;
    };
    const check = beginOrderSignature(
      secret,
      config.orders.webhookToleranceSeconds,
      { timestamp: header(TIMESTAMP_HEADER), signature: header(SIGNATURE_HEADER) },
      new Date(),
    );
    if (typeof check === 'string') throw unauthorized(SIGNATURE_MESSAGES[check]);
    return {
      update: (chunk) => check.update(chunk),
      verify: () => {
        const problem = check.problem();
        if (problem) throw unauthorized(SIGNATURE_MESSAGES[problem]);
      },
    };
  };
  // The signature covers the exact bytes sent: checked on them before the body is parsed or walked.
  acceptSignedJson(app, beginCheck);
  // A request without a body never reached the parser: its signature is checked over no bytes.
  const checkSignatureOfNoBody = async (request: FastifyRequest) => {
    if (!signedBodyOf(request)) beginCheck(request).verify();
  };
  const signing =
    'Body signed with HMAC-SHA256 over `<timestamp>.<body>` using the shared secret: ' +
    '`X-Svc-Timestamp: <unix seconds>`, `X-Svc-Signature: sha256=<hex>`.';

  app.post(
    '/webhooks/commerce/orders',
    {
      preValidation: checkSignatureOfNoBody,
      schema: {
        summary: 'Deliver an order (commerce platform webhook)',
        description: `${signing} An order id delivered again is counted once. Attribution: docs/attribution.md.`,
        operationId: 'receiveOrder',
        tags: ['commerce'],
        security: [{ orderSignature: [] }],
        headers: OrderWebhookHeaders,
        body: OrderWebhookBody,
        response: {
          200: described('The order was received (counted once, also when delivered again)', OrderOutcome),
          400: errorResponse('The body is not valid JSON or not an order, or its currency is not ISO 4217 (invalid_currency)', {
            error: 'invalid_request',
            message: 'body/currency must match pattern',
          }),
          401: errorResponse('The timestamp or signature is missing, outside the accepted window, or does not match the body', {
            error: 'unauthorized',
            message: 'x-svc-signature does not match the body',
          }),
          429: RATE_LIMITED,
          503: errorResponse(
            'The webhook is not configured on this host (no ORDERS_WEBHOOK_SECRET), or the database could not be reached',
            {
              error: 'service_unavailable',
              message: 'the order webhook is not configured on this host',
            },
          ),
        },
      },
    },
    async (request) => {
      const body = request.body;
      return receiveOrder({ db, ...config.orders }, { ...body, placedAt: new Date(body.placedAt) });
    },
  );

  app.post(
    '/webhooks/commerce/order-events',
    {
      preValidation: checkSignatureOfNoBody,
      schema: {
        summary: 'Deliver a cancel or refund of an order (commerce platform webhook)',
        description:
          `${signing} The order's commission is reversed by a ledger entry of the opposite sign, for the share the event took; ` +
          'an event id delivered again counts once. An event for an order the service has not received yet is kept ' +
          '(status waiting_for_order) and applied when the order arrives.',
        operationId: 'receiveOrderEvent',
        tags: ['commerce'],
        security: [{ orderSignature: [] }],
        headers: OrderWebhookHeaders,
        body: OrderEventBody,
        response: {
          200: described(
            'The event was taken (once, also when delivered again): applied, or kept until its order arrives',
            OrderEventOutcome,
          ),
          400: errorResponse("The body is not valid JSON or not an event, or its currency is not ISO 4217 or not the order's", {
            error: 'invalid_request',
            message: 'the order is in USD, not EUR',
          }),
          401: errorResponse('The timestamp or signature is missing, outside the accepted window, or does not match the body', {
            error: 'unauthorized',
            message: 'x-svc-signature does not match the body',
          }),
          409: errorResponse('The event id was delivered before for another order', {
            error: 'conflict',
            message: 'event rf-1 was received for order 1000',
          }),
          429: RATE_LIMITED,
          503: errorResponse(
            'The webhook is not configured on this host (no ORDERS_WEBHOOK_SECRET), or the database could not be reached',
            { error: 'service_unavailable', message: 'the order webhook is not configured on this host' },
          ),
        },
      },
    },
    async (request) => {
      const { type, occurredAt, ...event } = request.body;
      return recordOrderEvent({ db }, { ...event, kind: type, occurredAt: new Date(occurredAt) });
    },
  );
};
