import crypto from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/database.js';
import { ApiError } from '../../http/errors.js';
import { constantTimeEqual } from '../../shared/keys.js';
import { DrainingWorker } from '../../jobs/draining-worker.js';
import { PeriodicJob } from '../../jobs/periodic.js';
import {
  commissionFor,
  customerData,
  type OrdersContext,
  receiveOrder,
  recordOrderEvent,
  redactCustomer,
  redactStoreCustomers,
} from '../../orders/service.js';
import { StoreDisconnectedError } from './admin-client.js';
import type { ShopifyCommerce } from './adapter.js';
import { TokenRefusedError, StoreNotInstalledError } from './tokens.js';
import { chargeCommission, retryHeldCharges } from './billing.js';
import * as dal from './dal.js';
import * as documents from './documents.js';
import {
  cancellationReversal,
  incomingOrder,
  type OrderJourney,
  type OrderReversal,
  presentmentBase,
  referralTokenOf,
  refundReversal,
  type ShopifyOrderPayload,
  type ShopifyRefundPayload,
  UnreadablePayloadError,
} from './orders.js';

/** Every topic the webhook endpoint takes (Shopify's REST names, as in X-Shopify-Topic). */
export const TOPICS = new Set([
  'orders/create',
  'orders/paid',
  'orders/cancelled',
  'refunds/create',
  'app/uninstalled',
  'app_subscriptions/update',
  'app_subscriptions/approaching_capped_amount',
  'customers/data_request',
  'customers/redact',
  'shop/redact',
]);

export const COMPLIANCE_TOPICS = new Set(['customers/data_request', 'customers/redact', 'shop/redact']);

/**
 * The webhook route's body limit (the app's is 1 MB). Shopify publishes no limit for HTTPS
 * deliveries (its staff say bodies can be "upwards of a megabyte"); it sends at most 1,000,000
 * bytes through EventBridge, larger bodies falling back to `{"id": …}` there. The largest body of
 * a topic the app takes is an `orders/cancelled` of an order fulfilled and refunded in full: each
 * line three times (the order's, the fulfillment's, the refund's). With Shopify's own example
 * fields that is 1.57 MB for 500 lines (its draft-order limit is 499); 4 MiB leaves room for lines
 * richer than the example's. Every byte up to it costs a stranger's request one HMAC, nothing
 * more: the signature is checked before anything is parsed (docs/shopify.md, "Webhooks").
 */
export const WEBHOOK_BODY_LIMIT_BYTES = 4 * 1024 * 1024;

/**
 * `X-Shopify-Hmac-Sha256`: base64 of HMAC-SHA256 over the raw body with the app's secret, fed the
 * body as it arrives and compared in constant time. Null when the request carries no signature.
 */
export function shopifySignature(
  secret: string,
  header: string | string[] | undefined,
): { update(chunk: Buffer): void; matches(): boolean } | null {
  if (typeof header !== 'string' || header === '') return null;
  const hmac = crypto.createHmac('sha256', secret);
  return {
    update: (chunk) => hmac.update(chunk),
    matches: () => constantTimeEqual(hmac.digest('base64'), header),
  };
}

/**
 * How long the raw body of a delivery that stopped is kept for support to send it through again;
 * then it is erased (it can hold a shopper's personal data) and only the ids it named are kept.
 */
export const STOPPED_BODY_RETENTION_MS = 7 * 24 * 60 * 60_000;

export interface Delivery {
  webhookId: string;
  shop: string;
  topic: string;
  payload: unknown;
}

export interface WebhookDeps {
  shopify: ShopifyCommerce;
  db: Db;
  /** How orders are attributed and what they owe (the orders domain's settings). */
  orders: Pick<OrdersContext, 'commissionBasisPoints' | 'attributionWindowDays'>;
  log: FastifyBaseLogger;
}

/**
 * What each topic does. Returns what the delivery keeps once done (never a shopper's personal
 * data): the order's outcome, the reversal for the ledger, or the answer to a data request.
 */
export async function handleDelivery(deps: WebhookDeps, delivery: Delivery): Promise<unknown> {
  const { shopify, db, log } = deps;
  const { shop, topic } = delivery;
  switch (topic) {
    case 'app/uninstalled':
      return confirmUninstall(shopify, shop, log);
    case 'app_subscriptions/update':
      // The body says what changed; the installation says what holds.
      if ((await shopify.status(shop)).installation !== 'installed') return undefined;
      // An approved plan or a raised capped amount may let the commissions Shopify refused before be charged now.
      if (!(await shopify.refreshSubscription(shop))) return undefined;
      return { heldCharges: await retryHeldCharges(shopify, db, shop) };
    case 'app_subscriptions/approaching_capped_amount': {
      if ((await shopify.status(shop)).installation !== 'installed') return undefined;
      const raise = await shopify.askToRaiseCap(shop);
      // Support sees which store was asked, and for how much; the link itself waits for the store's staff (docs/shopify.md).
      if (raise)
        log.warn({ shop, cappedMinor: raise.cappedMinor, currency: raise.currency }, 'Shopify capped amount nearly used: raise asked');
      return raise ? { capRaise: { cappedMinor: raise.cappedMinor, currency: raise.currency } } : undefined;
    }
    case 'orders/create':
    case 'orders/paid':
      return takeOrder(deps, shop, delivery.payload as ShopifyOrderPayload);
    case 'orders/cancelled':
      return takeReversal(deps, cancellationReversal(shop, delivery.payload as ShopifyOrderPayload));
    case 'refunds/create':
      return takeReversal(deps, refundReversal(shop, delivery.payload as ShopifyRefundPayload));
    case 'customers/data_request': {
      const request = delivery.payload as { customer: { id: number }; data_request?: { id: number } };
      const orders = await customerData(db, shop, String(request.customer.id));
      log.info({ shop, dataRequest: request.data_request?.id, orders: orders.length }, 'Shopify data request answered');
      return { dataRequest: request.data_request?.id ?? null, customer: request.customer.id, orders };
    }
    case 'customers/redact': {
      const request = delivery.payload as { customer: { id: number } };
      const unlinked = await redactCustomer(db, shop, String(request.customer.id));
      await dal.dropPendingPayloadsOfCustomer(db, shop, String(request.customer.id), delivery.webhookId);
      return { redactedOrders: unlinked };
    }
    case 'shop/redact': {
      const unlinked = await redactStoreCustomers(db, shop);
      await dal.eraseShop(db, shop, delivery.webhookId);
      // The store's own domain was Shopify's word about the shop: it goes with the rest.
      await shopify.unlinkDomains(shop);
      return { redactedOrders: unlinked };
    }
    default:
      return { ignored: topic };
  }
}

/**
 * app/uninstalled: Shopify revokes the token before it sends this, so the store leaves when its
 * token no longer answers. A body replayed under this topic for a store whose token still
 * works (or a reinstall that overtook a late delivery) changes nothing.
 */
async function confirmUninstall(shopify: ShopifyCommerce, shop: string, log: FastifyBaseLogger): Promise<unknown> {
  // Another call met the revoked token first and recorded a lost access: Shopify's word makes it the uninstall it was.
  if ((await shopify.status(shop)).installation !== 'installed')
    return { left: false, uninstalled: await shopify.uninstalledAfterDisconnect(shop) };
  try {
    await shopify.request(shop, documents.SHOP_PROFILE);
  } catch (error) {
    if (error instanceof StoreDisconnectedError) {
      await shopify.disconnect(shop, 'uninstalled');
      return { left: true };
    }
    throw error;
  }
  log.warn({ shop }, 'app/uninstalled for a store whose token still works: not taken');
  return { left: false };
}

/**
 * A cancel or refund reverses the order's commission in the ledger (an entry of the opposite sign,
 * once per refund id or cancellation). An order the service never received (placed before the
 * install, say) owes nothing, so there is nothing to reverse.
 */
async function takeReversal(deps: WebhookDeps, reversal: OrderReversal) {
  // A refund is in the order's currency; a cancel takes what is left of the order.
  const refunded = reversal.refunded[0];
  if (reversal.refundId !== null && !refunded) return { reversal, skipped: 'nothing refunded' };
  // An event ahead of its order is kept and applied when the order arrives (issue 26): the outcome says which.
  const outcome = await recordOrderEvent(
    { db: deps.db },
    {
      storeDomain: reversal.storeDomain,
      eventId: reversal.refundId ?? `cancel-${reversal.orderId}`,
      orderId: reversal.orderId,
      kind: reversal.refundId === null ? 'cancel' : 'refund',
      amountCents: refunded?.amountCents,
      currency: refunded?.currency,
      occurredAt: new Date(reversal.at),
    },
  );
  return { reversal, outcome };
}

/**
 * A store that left since the order was placed has no Admin API to ask: the service's own history
 * decides, and the webhook's landing page alone names the click.
 */
async function orderJourney(shopify: ShopifyCommerce, shop: string, orderGid: string): Promise<OrderJourney | undefined> {
  try {
    return await shopify.orderJourney(shop, orderGid);
  } catch (error) {
    if (error instanceof StoreNotInstalledError || error instanceof StoreDisconnectedError) return undefined;
    throw error;
  }
}

async function takeOrder(deps: WebhookDeps, shop: string, payload: ShopifyOrderPayload) {
  const parsed = incomingOrder(shop, payload);
  if (!parsed) return { orderId: String(payload.id), skipped: 'no customer' };
  // New or returning, from Shopify's own data: the order's place in its customer's history (the ledger records it as the reason).
  const orderGid = payload.admin_graphql_api_id ?? `gid://shopify/Order/${parsed.orderId}`;
  const journey = await orderJourney(deps.shopify, shop, orderGid);
  const order = {
    ...parsed,
    // The shopper's click, where the webhook has none: the visits Shopify recorded before the order.
    referralToken: referralTokenOf(payload, journey),
    customerOrderCount: journey?.customerOrderIndex ?? undefined,
  };
  const outcome = await receiveOrder({ db: deps.db, ...deps.orders }, order);
  // The shopper's currency may be the plan's when the shop's is not: the same rate on Shopify's converted base.
  const presentment = presentmentBase(payload);
  if (outcome.commissionCents > 0 && presentment) {
    const commissionMinor = commissionFor(presentment.baseMinor, deps.orders.commissionBasisPoints);
    await dal.noteOrderCommission(deps.db, { shop, orderId: order.orderId, currency: presentment.currency, commissionMinor });
  }
  const charge =
    outcome.commissionCents > 0
      ? await chargeCommission(deps.shopify, deps.db, {
          shop,
          orderId: order.orderId,
          amountMinor: outcome.commissionCents,
          currency: outcome.currency,
        })
      : null;
  if (charge && charge !== 'charged') deps.log.warn({ shop, orderId: order.orderId, charge }, 'commission not charged as a usage record');
  // A commission past the cap waits for a higher one: the merchant is asked for it as when the cap is nearly used.
  if (charge === 'over_cap') await deps.shopify.askToRaiseCap(shop);
  return {
    orderId: outcome.orderId,
    matchedBy: outcome.matchedBy,
    newCustomer: outcome.newCustomer,
    commissionCents: outcome.commissionCents,
    charge,
  };
}

const MAX_RETRY_MS = 60_000;
/** Attempts before a delivery stops and waits for support (with MAX_RETRY_MS, about ten minutes of retrying). */
export const MAX_DELIVERY_ATTEMPTS = 12;

/** A failure no retry can mend: a body that cannot be booked, or one the orders domain refuses as bad input. */
function cannotSucceed(error: unknown): boolean {
  return error instanceof UnreadablePayloadError || (error instanceof ApiError && error.statusCode === 400);
}

/**
 * Works off webhook deliveries as durable jobs, as the setup worker does setup jobs: one claimed
 * at a time with a lease, its result written only while the lease holds, a failure retried with
 * growing delays. The endpoint only records a delivery and nudges this worker: every topic, the
 * lifecycle ones (app/uninstalled, app_subscriptions/update) too, so Shopify gets its answer
 * without waiting for the Admin API.
 */
export class WebhookWorker extends DrainingWorker {
  constructor(private readonly options: WebhookDeps & { pollMs: number; retryMs: number; leaseMs: number }) {
    super({ pollMs: options.pollMs, log: options.log, claimFailure: 'Shopify webhook worker could not claim a delivery' });
  }

  async runOnce(now = new Date()): Promise<boolean> {
    const { db, log, leaseMs } = this.options;
    const delivery = await dal.claimDueDelivery(db, now, leaseMs);
    if (!delivery) return false;
    const where = { shop: delivery.shop, topic: delivery.topic, webhookId: delivery.webhookId, attempt: delivery.attempts };
    try {
      const result = await handleDelivery(this.options, delivery);
      if (!(await dal.completeDelivery(db, delivery.webhookId, delivery.leaseId, result, new Date()))) {
        log.warn(where, 'Shopify webhook lease lost: another worker has the delivery');
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (cannotSucceed(error) || delivery.attempts >= MAX_DELIVERY_ATTEMPTS) {
        log.error({ ...where, err: error }, 'Shopify webhook failed for good: stopped, listed for support at GET /admin/shopify/attention');
        await dal.failDelivery(db, delivery.webhookId, delivery.leaseId, message, new Date());
        return true;
      }
      const delay = Math.min(this.options.retryMs * 2 ** Math.max(0, delivery.attempts - 1), MAX_RETRY_MS);
      // A retry is expected (the platform or the database was briefly away): one line, no stack trace.
      log.warn({ ...where, retryInMs: delay, reason: message }, 'Shopify webhook failed; will retry');
      await dal.rescheduleDelivery(db, delivery.webhookId, delivery.leaseId, new Date(Date.now() + delay), message, new Date());
    }
    return true;
  }
}

/** Erases the raw bodies of deliveries stopped for longer than STOPPED_BODY_RETENTION_MS; returns how many. */
export async function eraseStoppedBodies(db: Db, log: FastifyBaseLogger, now = new Date()): Promise<number> {
  const erased = await dal.eraseStoppedDeliveryBodies(db, new Date(now.getTime() - STOPPED_BODY_RETENTION_MS), now);
  if (erased > 0) log.info({ erased }, 'Shopify webhook bodies of stopped deliveries erased');
  return erased;
}

const BODY_ERASER_INTERVAL_MS = 60 * 60_000;

/** Hourly, so a stopped body is kept at most an hour past its retention. */
export function stoppedBodyEraser(db: Db, log: FastifyBaseLogger): PeriodicJob {
  return new PeriodicJob(
    async () => {
      await eraseStoppedBodies(db, log);
    },
    BODY_ERASER_INTERVAL_MS,
    (error) => log.error({ err: error }, 'erasing the bodies of stopped Shopify webhook deliveries failed; it runs again within the hour'),
  );
}

/** Stores whose webhook subscriptions one round checks: one Admin API read each, writes only for what is missing. */
const RECONCILE_BATCH = 200;
const RECONCILE_INTERVAL_MS = 60 * 60_000;

/**
 * Walks the connected stores a batch per round, in domain order, from where the last round
 * stopped (from the start again after the last store, or after a restart), and subscribes again
 * the topics Shopify deleted after 8 failed deliveries in a row. Returns the stores it checked.
 */
export class WebhookReconciler {
  private after = '';

  constructor(private readonly options: { shopify: ShopifyCommerce; db: Db; log: FastifyBaseLogger; batch?: number }) {}

  async round(): Promise<string[]> {
    const { shopify, db, log } = this.options;
    const shops = await dal.connectedShopsAfter(db, this.after, this.options.batch ?? RECONCILE_BATCH);
    this.after = shops.length < (this.options.batch ?? RECONCILE_BATCH) ? '' : shops.at(-1)!;
    for (const shop of shops) {
      try {
        await shopify.reconcileWebhooks(shop);
      } catch (error) {
        // A store that left meanwhile has nothing to reconcile; anything else is tried again next round.
        if (error instanceof StoreNotInstalledError || error instanceof StoreDisconnectedError || error instanceof TokenRefusedError)
          continue;
        log.warn(
          { shop, reason: error instanceof Error ? error.message : String(error) },
          'could not reconcile Shopify webhooks; next round',
        );
      }
    }
    return shops;
  }

  /** Hourly: a deleted subscription costs at most an hour of deliveries, which the stores' own history can fill. */
  job(): PeriodicJob {
    return new PeriodicJob(
      async () => {
        await this.round();
      },
      RECONCILE_INTERVAL_MS,
      (error) => this.options.log.error({ err: error }, 'Shopify webhook reconciliation failed; it runs again within the hour'),
    );
  }
}
