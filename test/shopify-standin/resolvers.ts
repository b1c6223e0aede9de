import type { GraphQLSchema } from 'graphql';
import {
  appInstallationView,
  appSubscriptionCancel,
  appSubscriptionCreate,
  appSubscriptionLineItemUpdate,
  appSubscriptionView,
  appUsageRecordCreate,
} from './billing.js';
import { bulkOperationRunQuery, bulkOperationView, currentBulkOperation, findBulkOperation } from './bulk-operations.js';
import { hasScope, type ResolverContext } from './core.js';
import {
  codeDiscountNode,
  discountCodeBasicCreate,
  discountCodeBasicUpdate,
  discountCodeDelete,
  discountNodeView,
  findDiscountByCode,
} from './discounts.js';
import { shopifyError } from './errors.js';
import { run } from './executor.js';
import { parseGid } from './model.js';
import {
  count,
  customerView,
  filteredProducts,
  orderView,
  ordersConnection,
  productsConnection,
  productView,
  shopView,
  visibleOrders,
} from './views.js';
import {
  webhookSubscriptionById,
  webhookSubscriptionCreate,
  webhookSubscriptionDelete,
  webhookSubscriptionsConnection,
  webhookSubscriptionUpdate,
} from './webhook-subscriptions.js';

/**
 * The root query and mutation fields the stand-in answers, each behind the access scope Shopify
 * requires for it. Root fields not listed here are reported as not implemented.
 */
type Args = Record<string, any>;

function requireScope(context: ResolverContext, field: string, scope: string): void {
  if (hasScope(context.scopes, scope)) return;
  throw shopifyError(`Access denied for ${field} field. Required access: \`${scope}\` access scope.`, 'ACCESS_DENIED', {
    documentation: 'https://shopify.dev/api/usage/access-scopes',
    requiredAccess: `\`${scope}\` access scope.`,
  });
}

function scoped(context: ResolverContext, field: string, scope: string | null, resolve: (args: Args) => unknown) {
  return (args: Args) => {
    if (scope) requireScope(context, field, scope);
    return resolve(args);
  };
}

function nodeById(context: ResolverContext, id: string): unknown {
  const parsed = parseGid(id);
  if (!parsed) throw shopifyError(`Invalid global id '${id}'`, 'INVALID_ID');
  const { shop } = context;
  switch (parsed.kind) {
    case 'Product': {
      requireScope(context, 'node', 'read_products');
      const product = shop.productsById.get(parsed.id);
      return product ? productView(context, product) : null;
    }
    case 'Order': {
      requireScope(context, 'node', 'read_orders');
      const order = visibleOrders(context, null).find((candidate) => candidate.id === parsed.id);
      return order ? orderView(context, order) : null;
    }
    case 'Customer': {
      requireScope(context, 'node', 'read_customers');
      const customer = shop.customers.get(parsed.id);
      return customer ? customerView(context, customer) : null;
    }
    case 'DiscountCodeNode':
      requireScope(context, 'node', 'read_discounts');
      return codeDiscountNode(context, id);
    case 'BulkOperation': {
      const operation = findBulkOperation(shop, id);
      return operation ? bulkOperationView(context, operation) : null;
    }
    case 'AppSubscription': {
      const subscription = shop.subscriptions.find((candidate) => candidate.id === parsed.id);
      return subscription ? appSubscriptionView(context, subscription) : null;
    }
    case 'WebhookSubscription':
      return webhookSubscriptionById(context, id);
    default:
      return null;
  }
}

export function rootValue(context: ResolverContext, schema: GraphQLSchema): Record<string, unknown> {
  const { shop } = context;
  const runInBulk = (prepared: Parameters<Parameters<typeof bulkOperationRunQuery>[3]>[0]) =>
    run(schema, prepared, rootValue({ ...context, bulk: true }, schema), { ...context, bulk: true }, {});
  return {
    shop: () => shopView(shop),
    // No access scope guards it in Shopify's reference.
    shopBillingPreferences: () => ({ __typename: 'ShopBillingPreferences', currency: shop.billingCurrency }),
    products: scoped(context, 'products', 'read_products', (args) => productsConnection(context, args)),
    productsCount: scoped(context, 'productsCount', 'read_products', (args) =>
      count(filteredProducts(context, args).length, args.limit ?? null),
    ),
    product: scoped(context, 'product', 'read_products', (args) => {
      const parsed = parseGid(args.id);
      const product = parsed?.kind === 'Product' ? shop.productsById.get(parsed.id) : undefined;
      return product ? productView(context, product) : null;
    }),
    orders: scoped(context, 'orders', 'read_orders', (args) => ordersConnection(context, args)),
    ordersCount: scoped(context, 'ordersCount', 'read_orders', (args) =>
      count(visibleOrders(context, args.query).length, args.limit ?? null),
    ),
    order: scoped(context, 'order', 'read_orders', (args) => nodeById(context, args.id)),
    customer: scoped(context, 'customer', 'read_customers', (args) => nodeById(context, args.id)),
    node: (args: Args) => nodeById(context, args.id),
    nodes: (args: Args) => (args.ids as string[]).map((id) => nodeById(context, id)),
    codeDiscountNode: scoped(context, 'codeDiscountNode', 'read_discounts', (args) => codeDiscountNode(context, args.id)),
    codeDiscountNodeByCode: scoped(context, 'codeDiscountNodeByCode', 'read_discounts', (args) => {
      const discount = findDiscountByCode(context, args.code);
      return discount ? discountNodeView(context, discount) : null;
    }),
    webhookSubscriptions: (args: Args) => webhookSubscriptionsConnection(context, args),
    webhookSubscription: (args: Args) => webhookSubscriptionById(context, args.id),
    currentAppInstallation: () => appInstallationView(context),
    currentBulkOperation: (args: Args) => currentBulkOperation(context, args.type),
    bulkOperation: (args: Args) => {
      const operation = findBulkOperation(shop, args.id);
      return operation ? bulkOperationView(context, operation) : null;
    },

    discountCodeBasicCreate: scoped(context, 'discountCodeBasicCreate', 'write_discounts', (args) =>
      discountCodeBasicCreate(context, args as never),
    ),
    discountCodeBasicUpdate: scoped(context, 'discountCodeBasicUpdate', 'write_discounts', (args) =>
      discountCodeBasicUpdate(context, args as never),
    ),
    discountCodeDelete: scoped(context, 'discountCodeDelete', 'write_discounts', (args) => discountCodeDelete(context, args as never)),
    webhookSubscriptionCreate: (args: Args) => webhookSubscriptionCreate(context, args as never),
    webhookSubscriptionUpdate: (args: Args) => webhookSubscriptionUpdate(context, args as never),
    webhookSubscriptionDelete: (args: Args) => webhookSubscriptionDelete(context, args as never),
    appSubscriptionCreate: (args: Args) => appSubscriptionCreate(context, args as never),
    appSubscriptionCancel: (args: Args) => appSubscriptionCancel(context, args as never),
    appUsageRecordCreate: (args: Args) => appUsageRecordCreate(context, args as never),
    appSubscriptionLineItemUpdate: (args: Args) => appSubscriptionLineItemUpdate(context, args as never),
    bulkOperationRunQuery: (args: Args) => bulkOperationRunQuery(context, schema, args as never, runInBulk),
  };
}
