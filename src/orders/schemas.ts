import { Type, type Static, type TSchema } from 'typebox';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const OrderWebhookBody = Type.Object(
  {
    orderId: Type.String({ minLength: 1, maxLength: 200 }),
    storeDomain: Type.String({ minLength: 1, maxLength: 253 }),
    customerId: Type.String({ minLength: 1, maxLength: 200, description: "The store's customer id; stored hashed" }),
    totalCents: Type.Integer({
      minimum: 0,
      maximum: 100_000_000_00,
      description: "What the customer paid, in the currency's minor units as ISO 4217 counts them (JPY 0 decimals, KWD 3)",
    }),
    merchandiseCents: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 100_000_000_00,
        description:
          'The merchandise bought, after discounts, without tax, shipping and duties, in minor units: the commission is a share of it. ' +
          'Omitted when the total is all merchandise',
      }),
    ),
    currency: Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code; another three letters are refused (invalid_currency)' }),
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
        merchandiseCents: 3600,
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

export const OrderEventOutcome = Type.Object(
  {
    orderId: Type.String(),
    eventId: Type.String(),
    duplicate: Type.Boolean({ description: 'True when this event id was delivered before; nothing was reversed again' }),
    status: Type.Union([Type.Literal('applied'), Type.Literal('waiting_for_order')], {
      description: 'waiting_for_order: the order has not arrived yet; the event is kept and applied when it does',
    }),
    takenCents: Type.Integer({ description: 'What the event took off the order, in minor units (0 while waiting for the order)' }),
    reversedCents: Type.Integer({ description: 'Commission reversed by this event (a ledger entry of the opposite sign), in minor units' }),
    currency: Nullable(Type.String({ description: "The order's currency; null while an event that named none waits for its order" })),
  },
  {
    title: 'OrderEventOutcome',
    examples: [
      { orderId: '1001', eventId: 'rf-1', duplicate: false, status: 'applied', takenCents: 2000, reversedCents: 100, currency: 'USD' },
    ],
  },
);

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
    commissionCents: Type.Integer({ description: "The commission on the order's merchandise after discounts, in minor units" }),
    currency: Type.String({ description: "The order's ISO 4217 currency, as the service keeps it (upper case)" }),
    eventsApplied: Type.Array(OrderEventOutcome, {
      description: 'Cancels and refunds that came before the order, applied now in the order they occurred',
    }),
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
        commissionCents: 180,
        currency: 'USD',
        eventsApplied: [],
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

export const StatementQuery = Type.Object({
  month: Type.String({ pattern: '^\\d{4}-(0[1-9]|1[0-2])$', description: 'The UTC calendar month, YYYY-MM' }),
});

const HeldReason = Type.Union([Type.Literal('over_cap'), Type.Literal('no_plan'), Type.Literal('other_currency')], {
  description:
    "Why the commerce platform did not charge: the store's capped amount is used up (over_cap), its usage plan is not approved " +
    '(no_plan), or the plan is in another currency than the order (other_currency)',
});

export const StatementEntry = Type.Object({
  id: Type.Integer(),
  createdAt: Type.String({ format: 'date-time' }),
  kind: Type.Union([Type.Literal('commission'), Type.Literal('reversal'), Type.Literal('adjustment')], {
    description: "adjustment: support's manual entry, with a reason and who posted it, and no order",
  }),
  storeDomain: Nullable(Type.String()),
  orderId: Nullable(Type.String()),
  orderPlacedAt: Nullable(Type.String({ format: 'date-time', description: "The order's date" })),
  eventId: Nullable(Type.String({ description: 'The cancel or refund event a reversal answers' })),
  showingBrandId: Nullable(Type.String()),
  showingBrandName: Nullable(Type.String()),
  platformId: Nullable(
    Type.String({ description: 'Null: matched by the discount code alone, credited to the brand pair (unknown platform)' }),
  ),
  platformName: Nullable(Type.String()),
  amountMinor: Type.Integer({ description: 'Minor units of the currency (ISO 4217); a reversal is negative' }),
  currency: Type.String({ description: 'ISO 4217 code' }),
  rateBasisPoints: Type.Integer(),
  basisMinor: Type.Integer({
    description:
      'What the rate was applied to: the merchandise after discounts (no tax, shipping, duties), or the share a cancel or refund took',
  }),
  customer: Nullable(Type.Union([Type.Literal('new'), Type.Literal('returning')])),
  customerBasis: Nullable(Type.Union([Type.Literal('store_history'), Type.Literal('platform_order_count')])),
  touch: Nullable(Type.Union([Type.Literal('click'), Type.Literal('view')])),
  commerceChargeId: Nullable(Type.String({ description: "The commerce platform's charge of the commission (a Shopify usage record id)" })),
  settlement: Type.Union([Type.Literal('charged'), Type.Literal('held'), Type.Literal('owed')], {
    description:
      "charged: through the store's commerce platform (commerceChargeId); held: the platform was asked to charge the commission and " +
      'did not (heldReason); owed: to the service directly by the due date (a store not billed through a platform, a reversal, an ' +
      'adjustment; negative is a credit to the brand)',
  }),
  heldReason: Nullable(HeldReason),
  chargedAs: Nullable(
    Type.Object(
      {
        amountMinor: Type.Integer({ description: 'What the platform charged, in minor units of its own currency' }),
        currency: Type.String({ pattern: '^[A-Z]{3}$' }),
      },
      {
        description:
          "What the commerce platform charged for the commission, in its plan's currency: another currency than the entry's when " +
          "the order's own converted amounts were charged (a EUR order charged on a USD plan); null when it charged nothing",
      },
    ),
  ),
  reason: Nullable(Type.String()),
  postedBy: Nullable(Type.String()),
  adjusts: Nullable(
    Type.Object(
      { number: Type.String(), month: Type.String() },
      { description: "A late entry: the closed statement that holds its order's commission" },
    ),
  ),
});

export const StatementCurrency = Type.Object({
  currency: Type.String({ description: 'ISO 4217 code' }),
  commissionMinor: Type.Integer({ description: 'Commission on the attributed orders' }),
  reversalsMinor: Type.Integer({ description: 'Reversed by cancels and refunds (negative)' }),
  adjustmentsMinor: Type.Integer({ description: "Support's manual adjustments" }),
  netMinor: Type.Integer(),
  chargedMinor: Type.Integer({ description: "Charged through the store's commerce platform" }),
  heldMinor: Type.Integer({ description: 'Commission the platform was asked to charge and did not, for heldReasons' }),
  heldReasons: Type.Array(HeldReason),
  owedMinor: Type.Integer({ description: 'Net less charged and held: what the brand still owes the service directly by the due date' }),
  entries: Type.Integer(),
});

export const Statement = Type.Object(
  {
    companyId: Type.String(),
    businessName: Nullable(Type.String()),
    month: Type.String(),
    status: Type.Union([Type.Literal('open'), Type.Literal('closed')], {
      description: 'closed on the first day of the next month: numbered, its totals fixed, never changed',
    }),
    number: Nullable(Type.String()),
    closedAt: Nullable(Type.String({ format: 'date-time' })),
    dueOn: Nullable(Type.String({ format: 'date' })),
    paid: Nullable(
      Type.Boolean({
        description: 'True when the commerce platform charged all of it (nothing held or owed directly); null when not reported',
      }),
    ),
    currencies: Type.Array(StatementCurrency, { description: 'One line per currency; currencies are never added together' }),
    entries: Type.Array(StatementEntry),
  },
  { title: 'Statement' },
);
export type Statement = Static<typeof Statement>;

export const AdjustmentBody = Type.Object(
  {
    amountMinor: Type.Integer({
      minimum: -100_000_000_00,
      maximum: 100_000_000_00,
      description: 'Minor units of the currency; negative credits the brand, positive charges it; not 0',
    }),
    currency: Type.String({ pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code' }),
    reason: Type.String({ minLength: 1, maxLength: 500 }),
    postedBy: Type.String({ minLength: 1, maxLength: 200, description: 'Who on the support team posts it' }),
  },
  { additionalProperties: false, title: 'Adjustment' },
);
