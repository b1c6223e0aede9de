import crypto from 'node:crypto';
import type { ResolverContext, StandInCore } from './core.js';
import { notImplemented } from './errors.js';
import { gid, parseGid, type AppSubscription, type ShopRecord, type SubscriptionLineItem, type UsageRecord } from './model.js';
import { paginate, type ConnectionArgs } from './pagination.js';
import { money } from './views.js';
import { appSubscriptionPayload, approachingCappedAmountPayload } from './webhooks.js';

/**
 * App billing: appSubscriptionCreate (usage or recurring line items) answered with a
 * confirmationUrl on the shop's admin, where the merchant approves or declines; approval makes the
 * subscription ACTIVE, cancels the one it replaces, sends app_subscriptions/update and returns
 * the merchant to the app's returnUrl with `charge_id`. appUsageRecordCreate charges against the
 * usage line item's capped amount, once per idempotencyKey.
 */
interface MoneyInput {
  amount: string | number;
  currencyCode: string;
}

interface LineItemInput {
  plan: {
    appUsagePricingDetails?: { terms: string; cappedAmount: MoneyInput } | null;
    appRecurringPricingDetails?: { price: MoneyInput; interval?: 'EVERY_30_DAYS' | 'ANNUAL' | null; discount?: unknown } | null;
  };
}

const PERIOD_MS = 30 * 86_400_000;
const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

const cents = (amount: string | number) => Math.round(Number(amount) * 100);

/** `gid://shopify/AppSubscriptionLineItem/{subscription}?v=1&index={n}`, Shopify's form. */
const lineItemGid = (subscription: AppSubscription, item: SubscriptionLineItem) =>
  `gid://shopify/AppSubscriptionLineItem/${subscription.id}?v=1&index=${item.index}`;

function pricingView(item: SubscriptionLineItem) {
  const pricing = item.pricing;
  if (pricing.kind === 'usage') {
    return {
      __typename: 'AppUsagePricing',
      terms: pricing.terms,
      cappedAmount: money(pricing.cappedAmountCents, pricing.currency),
      balanceUsed: money(pricing.balanceUsedCents, pricing.currency),
      interval: 'EVERY_30_DAYS',
    };
  }
  return {
    __typename: 'AppRecurringPricing',
    price: money(pricing.priceCents, pricing.currency),
    interval: pricing.interval,
    discount: null,
    planHandle: null,
  };
}

function usageRecordView(context: ResolverContext, subscription: AppSubscription, item: SubscriptionLineItem, record: UsageRecord) {
  return {
    __typename: 'AppUsageRecord',
    id: gid('AppUsageRecord', record.id),
    createdAt: record.createdAt.toISOString(),
    description: record.description,
    idempotencyKey: record.idempotencyKey,
    price: money(record.priceCents, record.currency),
    subscriptionLineItem: () => lineItemView(context, subscription, item),
  };
}

function lineItemView(context: ResolverContext, subscription: AppSubscription, item: SubscriptionLineItem): Record<string, unknown> {
  return {
    __typename: 'AppSubscriptionLineItem',
    id: lineItemGid(subscription, item),
    plan: { pricingDetails: pricingView(item) },
    usageRecords: (args: ConnectionArgs) =>
      paginate(
        item.usageRecords,
        args,
        (record) => ({ id: record.id, value: record.id }),
        (record) => usageRecordView(context, subscription, item, record),
        context.bulk,
      ),
  };
}

export function appSubscriptionView(context: ResolverContext, subscription: AppSubscription) {
  return {
    __typename: 'AppSubscription',
    id: gid('AppSubscription', subscription.id),
    name: subscription.name,
    status: subscription.status,
    test: subscription.test,
    trialDays: subscription.trialDays,
    returnUrl: subscription.returnUrl,
    createdAt: subscription.createdAt.toISOString(),
    currentPeriodEnd: subscription.currentPeriodEnd?.toISOString() ?? null,
    lineItems: subscription.lineItems.map((item) => lineItemView(context, subscription, item)),
  };
}

export function appInstallationView(context: ResolverContext) {
  const { core, shop } = context;
  const subscriptions = shop.subscriptions;
  const app = {
    __typename: 'App',
    id: gid('App', core.app.id),
    apiKey: core.app.apiKey,
    title: core.app.title,
    handle: core.app.handle,
    embedded: false,
  };
  return {
    __typename: 'AppInstallation',
    id: gid('AppInstallation', shop.id),
    app,
    accessScopes: shop.installation.scopes.map((handle) => ({ handle, description: handle })),
    activeSubscriptions: subscriptions
      .filter((subscription) => subscription.status === 'ACTIVE')
      .map((subscription) => appSubscriptionView(context, subscription)),
    allSubscriptions: (args: ConnectionArgs) =>
      paginate(
        subscriptions,
        args,
        (subscription) => ({ id: subscription.id, value: subscription.id }),
        (subscription) => appSubscriptionView(context, subscription),
        context.bulk,
      ),
    // appPurchaseOneTimeCreate is not implemented, so there are never any: the empty list is the truth.
    oneTimePurchases: (args: ConnectionArgs) =>
      paginate(
        [],
        args,
        () => ({ id: 0, value: 0 }),
        (item) => item,
        context.bulk,
      ),
    launchUrl: `https://admin.shopify.com/store/${shop.domain.split('.')[0]}/apps/${core.app.handle}`,
    uninstallUrl: null,
  };
}

function confirmationSignature(core: StandInCore, subscriptionId: number): string {
  return crypto.createHmac('sha256', core.app.apiSecret).update(`charge:${subscriptionId}`).digest('hex');
}

export function confirmationPath(core: StandInCore, subscriptionId: number): string {
  const signature = confirmationSignature(core, subscriptionId);
  return (
    `/admin/charges/${core.app.id}/${subscriptionId}/RecurringApplicationCharge/confirm_recurring_application_charge` +
    `?signature=${signature}`
  );
}

export function verifyConfirmationSignature(core: StandInCore, subscriptionId: number, signature: string | null): boolean {
  const expected = Buffer.from(confirmationSignature(core, subscriptionId));
  const given = Buffer.from(signature ?? '');
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

type UserError = { field: string[] | null; message: string };

function lineItemProblems(lineItems: LineItemInput[]): UserError[] {
  const problems: UserError[] = [];
  if (lineItems.length === 0 || lineItems.length > 2)
    problems.push({ field: ['lineItems'], message: 'Line items must have between 1 and 2 items' });
  let usage = 0;
  let recurring = 0;
  lineItems.forEach((item, index) => {
    const field = ['lineItems', String(index), 'plan'];
    const { appUsagePricingDetails: usageDetails, appRecurringPricingDetails: recurringDetails } = item.plan;
    if (Boolean(usageDetails) === Boolean(recurringDetails))
      problems.push({ field, message: 'Plan must have exactly one pricing details' });
    if (usageDetails) {
      usage += 1;
      if (!usageDetails.terms.trim())
        problems.push({ field: [...field, 'appUsagePricingDetails', 'terms'], message: "Terms can't be blank" });
      if (!(cents(usageDetails.cappedAmount.amount) > 0))
        problems.push({ field: [...field, 'appUsagePricingDetails', 'cappedAmount'], message: 'Capped amount must be greater than 0' });
    }
    if (recurringDetails) {
      recurring += 1;
      if (recurringDetails.discount) throw notImplemented('recurring pricing discounts');
      if (!(cents(recurringDetails.price.amount) >= 0))
        problems.push({ field: [...field, 'appRecurringPricingDetails', 'price'], message: 'Price must be greater than or equal to 0' });
    }
  });
  if (usage > 1 || recurring > 1)
    problems.push({ field: ['lineItems'], message: 'Line items can include at most one usage and one recurring plan' });
  return problems;
}

export function appSubscriptionCreate(
  context: ResolverContext,
  args: {
    name: string;
    returnUrl: string;
    lineItems: LineItemInput[];
    test?: boolean | null;
    trialDays?: number | null;
    replacementBehavior?: string | null;
  },
) {
  const { core, shop } = context;
  const problems: UserError[] = [];
  if (!args.name.trim()) problems.push({ field: ['name'], message: "Name can't be blank" });
  if (!/^https?:\/\//.test(args.returnUrl) || !URL.canParse(args.returnUrl))
    problems.push({ field: ['returnUrl'], message: 'Return url is invalid' });
  if ((args.trialDays ?? 0) < 0) problems.push({ field: ['trialDays'], message: 'Trial days must be greater than or equal to 0' });
  problems.push(...lineItemProblems(args.lineItems));
  // Shopify takes app charges in USD or in the merchant's local billing currency (shopBillingPreferences); the wording is the stand-in's.
  args.lineItems.forEach((item, index) => {
    const price = item.plan.appUsagePricingDetails?.cappedAmount ?? item.plan.appRecurringPricingDetails?.price;
    if (price && price.currencyCode !== 'USD' && price.currencyCode !== shop.billingCurrency)
      problems.push({
        field: ['lineItems', String(index), 'plan'],
        message: `Currency code must be USD or the shop's billing currency (${shop.billingCurrency})`,
      });
  });
  // Development and staff stores cannot be charged for real (the stand-in's wording).
  if (shop.testStore && !args.test) problems.push({ field: ['test'], message: 'This store can only accept test charges' });
  if (problems.length) return { appSubscription: null, confirmationUrl: null, userErrors: problems };
  const subscription: AppSubscription = {
    id: core.ids.next('AppSubscription'),
    name: args.name.trim(),
    status: 'PENDING',
    test: args.test ?? false,
    trialDays: args.trialDays ?? 0,
    returnUrl: args.returnUrl,
    createdAt: core.now(),
    currentPeriodEnd: null,
    lineItems: args.lineItems.map((item, index) => {
      const usageDetails = item.plan.appUsagePricingDetails;
      const recurringDetails = item.plan.appRecurringPricingDetails;
      return {
        index,
        usageRecords: [],
        pricing: usageDetails
          ? {
              kind: 'usage',
              terms: usageDetails.terms,
              cappedAmountCents: cents(usageDetails.cappedAmount.amount),
              currency: usageDetails.cappedAmount.currencyCode,
              balanceUsedCents: 0,
            }
          : {
              kind: 'recurring',
              priceCents: cents(recurringDetails!.price.amount),
              currency: recurringDetails!.price.currencyCode,
              interval: recurringDetails!.interval ?? 'EVERY_30_DAYS',
            },
      };
    }),
  };
  shop.subscriptions.push(subscription);
  return {
    appSubscription: appSubscriptionView(context, subscription),
    confirmationUrl: `https://${shop.domain}${confirmationPath(core, subscription.id)}`,
    userErrors: [],
  };
}

export function appSubscriptionCancel(context: ResolverContext, args: { id: string; prorate?: boolean | null }) {
  const parsed = parseGid(args.id);
  const subscription =
    parsed?.kind === 'AppSubscription' ? context.shop.subscriptions.find((candidate) => candidate.id === parsed.id) : undefined;
  if (!subscription) return { appSubscription: null, userErrors: [{ field: ['id'], message: "Couldn't find RecurringApplicationCharge" }] };
  if (subscription.status !== 'ACTIVE' && subscription.status !== 'PENDING') {
    return {
      appSubscription: null,
      userErrors: [{ field: ['id'], message: `Cannot cancel a ${subscription.status.toLowerCase()} subscription` }],
    };
  }
  subscription.status = 'CANCELLED';
  return { appSubscription: appSubscriptionView(context, subscription), userErrors: [] };
}

function findLineItem(shop: ShopRecord, id: string): { subscription: AppSubscription; item: SubscriptionLineItem } | null {
  const match = /^gid:\/\/shopify\/AppSubscriptionLineItem\/(\d+)\?v=1&index=(\d+)$/.exec(id);
  if (!match) return null;
  const subscription = shop.subscriptions.find((candidate) => candidate.id === Number(match[1]));
  const item = subscription?.lineItems[Number(match[2])];
  return subscription && item ? { subscription, item } : null;
}

export async function appUsageRecordCreate(
  context: ResolverContext,
  args: { subscriptionLineItemId: string; price: MoneyInput; description: string; idempotencyKey?: string | null },
) {
  const none = (field: string[], message: string) => ({ appUsageRecord: null, userErrors: [{ field, message }] });
  const found = findLineItem(context.shop, args.subscriptionLineItemId);
  if (!found) return none(['subscriptionLineItemId'], 'Subscription line item not found');
  const { subscription, item } = found;
  const pricing = item.pricing;
  if (pricing.kind !== 'usage') return none(['subscriptionLineItemId'], 'Subscription line item must have a usage pricing plan');
  if (subscription.status !== 'ACTIVE') return none(['subscriptionLineItemId'], 'Subscription is not active');
  const key = args.idempotencyKey ?? null;
  if (key !== null && key.length > MAX_IDEMPOTENCY_KEY_LENGTH)
    return none(['idempotencyKey'], `Idempotency key is too long (maximum is ${MAX_IDEMPOTENCY_KEY_LENGTH} characters)`);
  if (key !== null) {
    const existing = item.usageRecords.find((record) => record.idempotencyKey === key);
    if (existing) return { appUsageRecord: usageRecordView(context, subscription, item, existing), userErrors: [] };
  }
  if (!args.description.trim()) return none(['description'], "Description can't be blank");
  const priceCents = cents(args.price.amount);
  if (!(priceCents > 0)) return none(['price'], 'Price must be greater than 0');
  if (args.price.currencyCode !== pricing.currency) return none(['price', 'currencyCode'], `Currency code must be ${pricing.currency}`);
  if (pricing.balanceUsedCents + priceCents > pricing.cappedAmountCents) return none(['price'], 'Total price exceeds balance remaining');
  const record: UsageRecord = {
    id: context.core.ids.next('AppUsageRecord'),
    createdAt: context.core.now(),
    description: args.description,
    idempotencyKey: key,
    priceCents,
    currency: args.price.currencyCode,
  };
  item.usageRecords.push(record);
  const before = pricing.balanceUsedCents;
  pricing.balanceUsedCents += priceCents;
  // Shopify announces the balance crossing 90% of the capped amount, once per crossing.
  const threshold = pricing.cappedAmountCents * 0.9;
  if (before < threshold && pricing.balanceUsedCents >= threshold) {
    const payload = approachingCappedAmountPayload(context.shop, subscription, context.core.now());
    await context.core.webhooks.trigger(context.shop, 'app_subscriptions/approaching_capped_amount', payload);
  }
  return { appUsageRecord: usageRecordView(context, subscription, item, record), userErrors: [] };
}

/**
 * appSubscriptionLineItemUpdate: asks to raise a usage line item's capped amount. Nothing changes
 * until the merchant approves on the confirmation URL (approveCappedAmount here).
 */
export function appSubscriptionLineItemUpdate(context: ResolverContext, args: { id: string; cappedAmount: MoneyInput }) {
  const none = (field: string[], message: string) => ({ appSubscription: null, confirmationUrl: null, userErrors: [{ field, message }] });
  const found = findLineItem(context.shop, args.id);
  if (!found) return none(['id'], 'Subscription line item not found');
  const { subscription, item } = found;
  const pricing = item.pricing;
  if (pricing.kind !== 'usage') return none(['id'], 'Subscription line item must have a usage pricing plan');
  if (subscription.status !== 'ACTIVE') return none(['id'], 'Subscription is not active');
  if (args.cappedAmount.currencyCode !== pricing.currency)
    return none(['cappedAmount', 'currencyCode'], `Currency code must be ${pricing.currency}`);
  const capped = cents(args.cappedAmount.amount);
  if (!(capped > pricing.cappedAmountCents)) return none(['cappedAmount'], 'Capped amount must be greater than the current capped amount');
  pricing.pendingCappedAmountCents = capped;
  return {
    appSubscription: appSubscriptionView(context, subscription),
    confirmationUrl: `https://${context.shop.domain}/admin/charges/${context.core.app.id}/${subscription.id}/confirm_update_capped_amount`,
    userErrors: [],
  };
}

/**
 * The merchant's answer on the confirmation page. Approval activates the subscription and cancels
 * the active one it replaces; each change of status is announced with app_subscriptions/update.
 * Returns where the merchant's browser goes next.
 */
export async function answerCharge(core: StandInCore, shop: ShopRecord, subscription: AppSubscription, approve: boolean): Promise<string> {
  const now = core.now();
  const changed: AppSubscription[] = [subscription];
  if (approve) {
    for (const other of shop.subscriptions) {
      if (other !== subscription && other.status === 'ACTIVE') {
        other.status = 'CANCELLED';
        changed.push(other);
      }
    }
    subscription.status = 'ACTIVE';
    subscription.currentPeriodEnd = new Date(now.getTime() + subscription.trialDays * 86_400_000 + PERIOD_MS);
  } else {
    subscription.status = 'DECLINED';
  }
  for (const each of changed) await core.webhooks.trigger(shop, 'app_subscriptions/update', appSubscriptionPayload(shop, each, now));
  const returnUrl = new URL(subscription.returnUrl);
  returnUrl.searchParams.set('charge_id', String(subscription.id));
  return returnUrl.toString();
}

/**
 * The merchant approves the raise the app asked for (appSubscriptionLineItemUpdate), as on
 * Shopify's confirmation page: the cap becomes the amount asked and app_subscriptions/update
 * announces the change. Returns the new cap.
 */
export async function approveCappedAmount(core: StandInCore, shop: ShopRecord): Promise<number> {
  const subscription = shop.subscriptions.find((candidate) => candidate.status === 'ACTIVE');
  const usage = subscription?.lineItems.find((item) => item.pricing.kind === 'usage')?.pricing;
  if (!subscription || usage?.kind !== 'usage') throw new Error(`${shop.domain} has no active usage subscription`);
  if (usage.pendingCappedAmountCents === undefined) throw new Error(`${shop.domain} was not asked to raise its capped amount`);
  usage.cappedAmountCents = usage.pendingCappedAmountCents;
  delete usage.pendingCappedAmountCents;
  await core.webhooks.trigger(shop, 'app_subscriptions/update', appSubscriptionPayload(shop, subscription, core.now()));
  return usage.cappedAmountCents;
}

export const usageBalance = (subscription: AppSubscription) =>
  subscription.lineItems.reduce((sum, item) => sum + (item.pricing.kind === 'usage' ? item.pricing.balanceUsedCents : 0), 0);
