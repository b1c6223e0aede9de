import { Type, type Static } from 'typebox';

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
  },
  { additionalProperties: false },
);
export type OrderWebhookBody = Static<typeof OrderWebhookBody>;

export const OrderOutcome = Type.Object({
  orderId: Type.String(),
  duplicate: Type.Boolean({ description: 'True when this order id was delivered before; nothing was counted again' }),
  platformId: Type.Union([Type.String(), Type.Null()]),
  matchedBy: Type.Union([Type.Literal('referral_link'), Type.Literal('discount_code'), Type.Null()]),
  newCustomer: Type.Boolean(),
  commissionCents: Type.Integer(),
});
