import { Type, type Static, type TSchema } from 'typebox';

export const OrderWebhookBody = Type.Object(
  {
    orderId: Type.String({ minLength: 1, maxLength: 200 }),
    storeDomain: Type.String({ minLength: 1, maxLength: 253 }),
    customerId: Type.String({ minLength: 1, maxLength: 200, description: "The store's customer id; stored hashed" }),
    totalCents: Type.Integer({ minimum: 0, maximum: 100_000_000_00 }),
    currency: Type.String({ pattern: '^[A-Za-z]{3}$' }),
    placedAt: Type.String({ format: 'date-time' }),
    referralToken: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    discountCode: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    customerOrderCount: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000_000,
        description: "The commerce platform's count of the customer's orders, this one included: 1 makes it a new customer's first order",
      }),
    ),
  },
  {
    additionalProperties: false,
    title: 'OrderWebhook',
    examples: [
      {
        orderId: '1001',
        storeDomain: 'harborandvine.example',
        customerId: 'cust_48213',
        totalCents: 4250,
        currency: 'USD',
        placedAt: '2025-11-02T14:31:07.000Z',
        referralToken: 'SGFyYm9yIGFuZCBWaW5lLmNoZWNrb3V0LWNv',
      },
    ],
  },
);

export const OrderWebhookHeaders = Type.Object({
  'x-svc-timestamp': Type.String({
    description: 'Unix seconds when the body was signed; outside the accepted window the delivery is refused',
    examples: ['1762093867'],
  }),
});
export type OrderWebhookBody = Static<typeof OrderWebhookBody>;

export const OrderOutcome = Type.Object(
  {
    orderId: Type.String(),
    duplicate: Type.Boolean({ description: 'True when this order id was delivered before; nothing was counted again' }),
    platformId: Type.Union([Type.String(), Type.Null()]),
    matchedBy: Type.Union([Type.Literal('referral_link'), Type.Literal('discount_code'), Type.Null()]),
    touch: Type.Union([Type.Literal('click'), Type.Literal('view'), Type.Null()], {
      description: 'The showing that won the order: the last click within the attribution window, else (view-through) the last view',
    }),
    outsideWindow: Type.Boolean({
      description: 'The order named a showing, but none within the attribution window: recorded, not attributed',
    }),
    newCustomer: Type.Boolean(),
    customerBasis: Type.Union([Type.Literal('store_history'), Type.Literal('platform_order_count')], {
      description: "Why the customer counts as new or returning: the store's history, or the commerce platform's order count",
    }),
    commissionCents: Type.Integer(),
  },
  {
    title: 'OrderOutcome',
    examples: [
      {
        orderId: '1001',
        duplicate: false,
        platformId: '7d9c3f5e-2b1a-4c8e-9f4d-1a2b3c4d5e6f',
        matchedBy: 'referral_link',
        touch: 'click',
        outsideWindow: false,
        newCustomer: true,
        customerBasis: 'store_history',
        commissionCents: 213,
      },
    ],
  },
);

export const OrderEventBody = Type.Object(
  {
    eventId: Type.String({
      minLength: 1,
      maxLength: 200,
      description: "The platform's id of the refund or cancellation; a replay counts once",
    }),
    type: Type.Union([Type.Literal('refund'), Type.Literal('cancel')]),
    orderId: Type.String({ minLength: 1, maxLength: 200 }),
    storeDomain: Type.String({ minLength: 1, maxLength: 253 }),
    amountCents: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 100_000_000_00,
        description: 'A refund: how much was refunded, in minor units. A cancel takes what is left',
      }),
    ),
    currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', description: "The order's currency; another one is refused" })),
    occurredAt: Type.String({ format: 'date-time' }),
  },
  {
    additionalProperties: false,
    title: 'OrderEvent',
    examples: [
      {
        eventId: 'rf-1',
        type: 'refund',
        orderId: '1001',
        storeDomain: 'shop.example',
        amountCents: 2000,
        currency: 'USD',
        occurredAt: '2026-11-02T15:04:05Z',
      },
    ],
  },
);

export const OrderEventOutcome = Type.Object(
  {
    orderId: Type.String(),
    eventId: Type.String(),
    duplicate: Type.Boolean({ description: 'True when this event id was delivered before; nothing was reversed again' }),
    takenCents: Type.Integer({ description: 'What the event took off the order, in minor units' }),
    reversedCents: Type.Integer({ description: 'Commission reversed by this event (a ledger entry of the opposite sign), in minor units' }),
    currency: Type.String(),
  },
  {
    title: 'OrderEventOutcome',
    examples: [{ orderId: '1001', eventId: 'rf-1', duplicate: false, takenCents: 2000, reversedCents: 100, currency: 'USD' }],
  },
);

export const StatementQuery = Type.Object({
  month: Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'The UTC calendar month, YYYY-MM' }),
});

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const StatementEntry = Type.Object({
  id: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  kind: Type.Union([Type.Literal('commission'), Type.Literal('reversal')]),
  storeDomain: Type.String(),
  orderId: Type.String(),
  eventId: Nullable(Type.String({ description: 'The cancel or refund event a reversal answers' })),
  showingBrandId: Type.String(),
  showingBrandName: Nullable(Type.String()),
  platformId: Type.String(),
  platformName: Nullable(Type.String()),
  amountMinor: Type.Integer({ description: 'Minor units of the currency; a reversal is negative' }),
  currency: Type.String({ description: 'ISO 4217 code' }),
  rateBasisPoints: Type.Integer(),
  basisMinor: Type.Integer({ description: 'What the rate was applied to: the order total, or what a cancel or refund took' }),
  customer: Type.Union([Type.Literal('new'), Type.Literal('returning')]),
  customerBasis: Type.Union([Type.Literal('store_history'), Type.Literal('platform_order_count')]),
  touch: Type.Union([Type.Literal('click'), Type.Literal('view')]),
  commerceChargeId: Nullable(Type.String()),
});

export const Statement = Type.Object(
  {
    companyId: Type.String(),
    businessName: Nullable(Type.String()),
    month: Type.String(),
    currencies: Type.Array(
      Type.Object({
        currency: Type.String(),
        commissionMinor: Type.Integer({ description: 'Commission owed on the attributed orders of the month' }),
        reversalsMinor: Type.Integer({ description: 'Reversed by cancels and refunds (negative)' }),
        netMinor: Type.Integer(),
        entries: Type.Integer(),
      }),
      { description: 'One line per currency; currencies are never added together' },
    ),
    entries: Type.Array(StatementEntry),
  },
  { title: 'Statement' },
);
export type Statement = Static<typeof Statement>;
