import { Type } from 'typebox';

export const InstallQuery = Type.Object({
  shop: Type.String({ description: 'The store, as its {name}.myshopify.com domain' }),
  return: Type.Optional(Type.String({ description: "A path of this service to continue at afterwards (the plugin's return flow)" })),
  challenge: Type.Optional(
    Type.String({ description: "The plugin's challenge: after the callback the store's staff are asked to confirm that plugin" }),
  ),
  claim: Type.Optional(
    Type.String({ description: "A sign-up's claim on the store: only its claimant, signed in, may start this install" }),
  ),
  platform: Type.Optional(Type.String({ description: 'The tech platform whose plugin made the link, named to the store’s staff' })),
});

export const PlanQuery = Type.Object({
  shop: Type.String(),
  return: Type.Optional(Type.String()),
  challenge: Type.Optional(Type.String()),
  platform: Type.Optional(Type.String()),
});

/** Where Shopify's charge page sends the merchant back: the plan route's query and the subscription Shopify names. */
export const PlanReturnQuery = Type.Object({
  shop: Type.String(),
  return: Type.Optional(Type.String()),
  charge_id: Type.Optional(Type.String({ description: "The subscription's numeric id, appended by Shopify" })),
});

/** Shopify opens the App URL with these, signed by `hmac` (and may add more, which the hmac covers too). */
const HomeNoteSchema = Type.Union(
  [
    Type.Literal('plan'),
    Type.Literal('consented'),
    Type.Literal('turned_on'),
    Type.Literal('claim_confirmed'),
    Type.Literal('claim_declined'),
  ],
  {
    description: 'What the merchant just did, so the home says what happened',
  },
);

export const AppLaunchQuery = Type.Object({
  shop: Type.String({ description: 'The store, as its {name}.myshopify.com domain' }),
  id_token: Type.Optional(
    Type.String({ description: "The staff member's session token (a JWT the admin signs with the app's secret), in the admin's frame" }),
  ),
  embedded: Type.Optional(Type.String({ description: '1 when the admin loads the app in its frame' })),
  hmac: Type.Optional(Type.String({ description: "Shopify's HMAC-SHA256 (hex) of the other parameters, keyed by the app's secret" })),
  timestamp: Type.Optional(Type.String({ description: 'When Shopify signed the launch, in seconds; older than 90 s is refused' })),
  host: Type.Optional(Type.String({ description: "The store's admin, base64 (Shopify's)" })),
  done: Type.Optional(HomeNoteSchema),
});

export const BounceQuery = Type.Object({
  shop: Type.String(),
  host: Type.Optional(Type.String()),
  'shopify-reload': Type.String({ description: 'The App URL App Bridge reloads with a fresh id_token' }),
});

export const OpenQuery = Type.Object({ shop: Type.String() });

export const HomeViewQuery = Type.Object({ shop: Type.Optional(Type.String()), done: Type.Optional(HomeNoteSchema) });

export const HomeAction = Type.Object({
  shop: Type.Optional(Type.String({ description: 'The store the page shows; it must be the session token’s' })),
  discountPercent: Type.Optional(Type.Integer({ description: 'The discount a partner’s shoppers get on their first order (consent)' })),
});

export const ClaimAnswer = Type.Object({
  shop: Type.Optional(Type.String({ description: 'The store the page shows; it must be the session token’s' })),
  claimId: Type.String({ format: 'uuid', description: 'The dashboard sign-up’s claim of this store the staff answer' }),
  decision: Type.Union([Type.Literal('confirm'), Type.Literal('decline')]),
});

export const HomeActionAnswer = Type.Object({
  done: Type.Optional(HomeNoteSchema),
  confirmationUrl: Type.Optional(Type.String({ description: 'Shopify’s page to approve the plan, opened in the top window' })),
});

export const WebhookReceipt = Type.Object({
  received: Type.Boolean(),
  duplicate: Type.Boolean({
    description: 'This webhook id, or this event through another subscription, was delivered before: nothing more was done',
  }),
});

/**
 * What needs support's attention at Shopify: stores that lost the app's access, webhook deliveries
 * that stopped, and stores asked to approve a higher capped amount (their over-cap commissions are held until then).
 */
export const ShopifyAttention = Type.Object({
  capRaises: Type.Array(
    Type.Object({
      shop: Type.String(),
      cappedMinor: Type.Integer({ description: 'The capped amount asked for, in minor units of currency' }),
      currency: Type.String({ pattern: '^[A-Z]{3}$' }),
      confirmationUrl: Type.String({
        description: "Shopify's page where the store's staff approve it (it works only for them, signed in at Shopify)",
      }),
      requestedAt: Type.String({ format: 'date-time' }),
    }),
    { description: 'Stores asked to approve a higher capped amount, oldest ask first: their held commissions are charged on approval' },
  ),
  disconnectedStores: Type.Array(
    Type.Object({
      shop: Type.String(),
      reason: Type.Union([Type.String(), Type.Null()], { description: 'refresh_refused, token_exchange_refused; null before issue 25' }),
      disconnectedAt: Type.String({ format: 'date-time' }),
    }),
  ),
  failedDeliveries: Type.Array(
    Type.Object({
      webhookId: Type.String(),
      shop: Type.String(),
      topic: Type.String(),
      attempts: Type.Integer(),
      lastError: Type.Union([Type.String(), Type.Null()]),
      receivedAt: Type.String({ format: 'date-time' }),
      failedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
      bodyErasedAt: Type.Union([Type.String({ format: 'date-time' }), Type.Null()], {
        description: 'When its raw body was erased (7 days after it stopped); it can no longer be sent through again',
      }),
    }),
  ),
});

export const WebhookIdParams = Type.Object({ webhookId: Type.String({ minLength: 1, maxLength: 200 }) });
export const RetriedDelivery = Type.Object({ webhookId: Type.String(), retried: Type.Literal(true) });
