import { Type } from 'typebox';

/** `unknown`: the orders credited to a brand pair with no platform (matched by the partner's discount code alone). */
export const UNKNOWN_PLATFORM_ID = 'unknown';

export const PlatformStatsParams = Type.Object({
  platformId: Type.Union([Type.String({ format: 'uuid' }), Type.Literal(UNKNOWN_PLATFORM_ID)], {
    description: "Platform.Id, or `unknown` for the orders matched by a partner's discount code alone, credited to no platform",
  }),
});

export const PlatformStatsQuery = Type.Object({
  from: Type.Optional(Type.String({ format: 'date', description: 'First UTC day counted (YYYY-MM-DD); omitted: from the start' })),
  to: Type.Optional(Type.String({ format: 'date', description: 'Last UTC day counted, inclusive; omitted: up to now' })),
});

export const PlatformStats = Type.Object(
  {
    views: Type.Integer({ description: 'Offers shown by the platform (one per offer returned)' }),
    clicks: Type.Integer({ description: 'Referral links followed from the platform' }),
    orders: Type.Integer({ description: 'Orders credited to the platform, in every currency' }),
    newCustomers: Type.Integer({ description: 'Of those orders, first orders of a customer new to the store' }),
    money: Type.Array(
      Type.Object({
        currency: Type.String({ description: 'ISO 4217 code' }),
        orders: Type.Integer(),
        newCustomers: Type.Integer(),
        revenueMinor: Type.Integer({ description: "The orders' totals less what cancels and refunds took, in minor units" }),
        commissionMinor: Type.Integer({ description: "The service's commission on those orders less reversals, in minor units" }),
      }),
      { description: 'One line per currency: amounts of different currencies are never added together' },
    ),
  },
  { title: 'PlatformStats' },
);

export const ReferralParams = Type.Object({
  token: Type.String({
    description: 'Opaque referral token, exactly as returned in referralUrl',
    examples: ['SGFyYm9yIGFuZCBWaW5lLmNoZWNrb3V0LWNv'],
  }),
});
