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
export const AppLaunchQuery = Type.Object({
  shop: Type.String({ description: 'The store, as its {name}.myshopify.com domain' }),
  hmac: Type.String({ description: "Shopify's HMAC-SHA256 (hex) of the other parameters, keyed by the app's secret" }),
  timestamp: Type.String({ description: 'When Shopify signed the launch, in seconds; older than 90 s is refused' }),
  host: Type.Optional(Type.String({ description: "The store's admin, base64 (Shopify's)" })),
});

export const HomeQuery = Type.Object({
  shop: Type.String(),
  done: Type.Optional(Type.Union([Type.Literal('plan'), Type.Literal('consented'), Type.Literal('turned_on')])),
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
