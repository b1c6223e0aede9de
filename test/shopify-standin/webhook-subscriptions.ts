import type { ResolverContext } from './core.js';
import { notImplemented } from './errors.js';
import { gid, parseGid, type WebhookSubscriptionRecord } from './model.js';
import { paginate, type ConnectionArgs } from './pagination.js';
import { ADMIN_API_VERSION } from './schema.js';

/**
 * webhookSubscriptionCreate / Update / Delete and the webhookSubscriptions query, with the checks
 * Shopify makes on the address: HTTPS only, one subscription per topic and address.
 */
interface WebhookSubscriptionInput {
  uri?: string | null;
  callbackUrl?: string | null;
  format?: 'JSON' | 'XML' | null;
  includeFields?: string[] | null;
  metafieldNamespaces?: string[] | null;
  filter?: string | null;
  metafields?: unknown;
  name?: string | null;
}

const addressError = (message: string) => ({ field: ['webhookSubscription', 'callbackUrl'], message });

export function webhookSubscriptionView(_context: ResolverContext, subscription: WebhookSubscriptionRecord) {
  return {
    __typename: 'WebhookSubscription',
    id: gid('WebhookSubscription', subscription.id),
    legacyResourceId: String(subscription.id),
    topic: subscription.topic,
    uri: subscription.uri,
    callbackUrl: subscription.uri,
    endpoint: { __typename: 'WebhookHttpEndpoint', callbackUrl: subscription.uri },
    format: subscription.format,
    includeFields: subscription.includeFields,
    metafieldNamespaces: subscription.metafieldNamespaces,
    metafields: [],
    filter: subscription.filter,
    name: null,
    apiVersion: { handle: ADMIN_API_VERSION, displayName: ADMIN_API_VERSION, supported: true },
    createdAt: subscription.createdAt.toISOString(),
    updatedAt: subscription.updatedAt.toISOString(),
  };
}

function addressProblem(context: ResolverContext, topic: string, address: string | null | undefined, except: number | null): string | null {
  if (!address) return "Address can't be blank";
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return 'Address is invalid';
  }
  if (url.protocol !== 'https:') return `Address protocol ${url.protocol}// is not supported`;
  const taken = [...context.shop.webhookSubscriptions.values()].some(
    (existing) => existing.id !== except && existing.topic === topic && existing.uri === address,
  );
  return taken ? 'Address for this topic has already been taken' : null;
}

function refuseUnmodelled(input: WebhookSubscriptionInput): void {
  if (input.format === 'XML') throw notImplemented('XML webhook payloads');
  if (input.metafields) throw notImplemented('webhook metafields');
}

export function webhookSubscriptionCreate(
  context: ResolverContext,
  args: { topic: string; webhookSubscription: WebhookSubscriptionInput },
) {
  const input = args.webhookSubscription;
  refuseUnmodelled(input);
  const address = input.uri ?? input.callbackUrl;
  const problem = addressProblem(context, args.topic, address, null);
  if (problem) return { webhookSubscription: null, userErrors: [addressError(problem)] };
  const now = context.core.now();
  const subscription: WebhookSubscriptionRecord = {
    id: context.core.ids.next('WebhookSubscription'),
    topic: args.topic,
    uri: address!,
    format: 'JSON',
    includeFields: input.includeFields ?? [],
    metafieldNamespaces: input.metafieldNamespaces ?? [],
    filter: input.filter ?? null,
    createdAt: now,
    updatedAt: now,
  };
  context.shop.webhookSubscriptions.set(subscription.id, subscription);
  return { webhookSubscription: webhookSubscriptionView(context, subscription), userErrors: [] };
}

function findSubscription(context: ResolverContext, id: string): WebhookSubscriptionRecord | undefined {
  const parsed = parseGid(id);
  return parsed?.kind === 'WebhookSubscription' ? context.shop.webhookSubscriptions.get(parsed.id) : undefined;
}

const missingSubscription = () => ({ field: ['id'], message: 'Webhook subscription does not exist' });

export function webhookSubscriptionUpdate(context: ResolverContext, args: { id: string; webhookSubscription: WebhookSubscriptionInput }) {
  const subscription = findSubscription(context, args.id);
  if (!subscription) return { webhookSubscription: null, userErrors: [missingSubscription()] };
  const input = args.webhookSubscription;
  refuseUnmodelled(input);
  const address = input.uri ?? input.callbackUrl;
  if (address !== undefined) {
    const problem = addressProblem(context, subscription.topic, address, subscription.id);
    if (problem) return { webhookSubscription: null, userErrors: [addressError(problem)] };
    subscription.uri = address!;
  }
  if (input.includeFields) subscription.includeFields = input.includeFields;
  if (input.metafieldNamespaces) subscription.metafieldNamespaces = input.metafieldNamespaces;
  if (input.filter !== undefined) subscription.filter = input.filter;
  subscription.updatedAt = context.core.now();
  return { webhookSubscription: webhookSubscriptionView(context, subscription), userErrors: [] };
}

export function webhookSubscriptionDelete(context: ResolverContext, args: { id: string }) {
  const subscription = findSubscription(context, args.id);
  if (!subscription) return { deletedWebhookSubscriptionId: null, userErrors: [missingSubscription()] };
  context.shop.webhookSubscriptions.delete(subscription.id);
  return { deletedWebhookSubscriptionId: args.id, userErrors: [] };
}

export function webhookSubscriptionsConnection(
  context: ResolverContext,
  args: ConnectionArgs & { topics?: string[] | null; uri?: string | null; callbackUrl?: string | null; query?: string | null },
) {
  if (args.query) throw notImplemented('webhookSubscriptions(query:)');
  const address = args.uri ?? args.callbackUrl;
  const subscriptions = [...context.shop.webhookSubscriptions.values()].filter(
    (subscription) => (!args.topics?.length || args.topics.includes(subscription.topic)) && (!address || subscription.uri === address),
  );
  return paginate(
    subscriptions,
    args,
    (subscription) => ({ id: subscription.id, value: subscription.id }),
    (subscription) => webhookSubscriptionView(context, subscription),
    context.bulk,
  );
}

export function webhookSubscriptionById(context: ResolverContext, id: string) {
  const subscription = findSubscription(context, id);
  return subscription ? webhookSubscriptionView(context, subscription) : null;
}
