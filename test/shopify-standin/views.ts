import { hasScope, type ResolverContext } from './core.js';
import { shopifyError } from './errors.js';
import { gid, type Customer, type LineItem, type Order, type Product, type Refund, type ShopRecord } from './model.js';
import { paginate, type ConnectionArgs } from './pagination.js';
import { datePredicate, listPredicate, numberPredicate, searchFilter } from './search-query.js';

/**
 * GraphQL views of the shop's records: plain objects whose properties are the schema's field
 * names and whose methods take the field's arguments. A field missing here is reported as not
 * implemented by the executor, never answered with a made-up null.
 */
type Args = Record<string, unknown>;

/** Shopify's Decimal: "10.0", "12.5", "12.99". */
export function decimal(cents: number): string {
  const text = (cents / 100).toString();
  return text.includes('.') ? text : `${text}.0`;
}

export const money = (cents: number, currencyCode: string) => ({ amount: decimal(cents), currencyCode });
export const moneyBag = (cents: number, currencyCode: string) => ({
  shopMoney: money(cents, currencyCode),
  presentmentMoney: money(cents, currencyCode),
});
export const count = (value: number, limit: number | null = null) =>
  limit !== null && value > limit ? { count: limit, precision: 'AT_LEAST' } : { count: value, precision: 'EXACT' };

/** Without read_all_orders an app sees the last 60 days of orders only, as on Shopify. */
export const RECENT_ORDERS_DAYS = 60;

export function shopView(shop: ShopRecord) {
  const address = {
    id: gid('ShopAddress', shop.id),
    country: shop.country,
    countryCodeV2: shop.countryCode,
    countryCode: shop.countryCode,
    city: null,
    province: null,
    provinceCode: null,
    zip: null,
    address1: null,
    address2: null,
    company: null,
    phone: null,
    coordinatesValidated: false,
    latitude: null,
    longitude: null,
    formattedArea: shop.country,
    formatted: () => [shop.country],
  };
  return {
    __typename: 'Shop',
    id: gid('Shop', shop.id),
    name: shop.name,
    email: shop.email,
    contactEmail: shop.email,
    description: shop.description,
    myshopifyDomain: shop.domain,
    currencyCode: shop.currency,
    url: `https://${shop.primaryHost}`,
    primaryDomain: {
      __typename: 'Domain',
      id: gid('Domain', shop.id),
      host: shop.primaryHost,
      url: `https://${shop.primaryHost}`,
      sslEnabled: true,
    },
    shopAddress: address,
    billingAddress: address,
    plan: {
      partnerDevelopment: shop.testStore === 'development',
      shopifyPlus: shop.plan === 'plus' || shop.plan === 'enterprise',
      publicDisplayName:
        shop.testStore === 'development'
          ? 'Development'
          : shop.testStore === 'staff'
            ? 'Staff Business'
            : shop.plan === 'plus'
              ? 'Shopify Plus'
              : 'Basic',
      displayName: 'Basic',
    },
  };
}

function imageView(product: Product) {
  return {
    __typename: 'Image',
    id: gid('ProductImage', product.mediaId!),
    url: () => product.imageUrl,
    src: product.imageUrl,
    originalSrc: product.imageUrl,
    transformedSrc: () => product.imageUrl,
    altText: product.title,
    width: 1024,
    height: 1024,
  };
}

function mediaView(product: Product) {
  const image = imageView(product);
  return {
    __typename: 'MediaImage',
    id: gid('MediaImage', product.mediaId!),
    alt: product.title,
    mediaContentType: 'IMAGE',
    status: 'READY',
    image,
    preview: { image, status: 'READY' },
    mediaErrors: [],
    mediaWarnings: [],
    mimeType: 'image/jpeg',
  };
}

export function productView(context: ResolverContext, product: Product): Record<string, unknown> {
  const currency = context.shop.currency;
  const variant = {
    __typename: 'ProductVariant',
    id: gid('ProductVariant', product.variantId),
    title: 'Default Title',
    price: decimal(product.priceCents),
    compareAtPrice: null,
    sku: `SKU-${product.id}`,
    inventoryQuantity: product.inventory,
    product: () => productView(context, product),
    media: (args: ConnectionArgs) =>
      paginate(product.mediaId ? [product] : [], args, (item) => ({ id: item.mediaId!, value: item.mediaId! }), mediaView, context.bulk),
  };
  const withImage = product.mediaId ? [product] : [];
  return {
    __typename: 'Product',
    id: gid('Product', product.id),
    legacyResourceId: String(product.id),
    title: product.title,
    handle: product.handle,
    vendor: product.vendor,
    productType: product.productType,
    status: product.status,
    createdAt: product.createdAt.toISOString(),
    updatedAt: product.createdAt.toISOString(),
    onlineStoreUrl: product.status === 'ACTIVE' ? `https://${context.shop.primaryHost}/products/${product.handle}` : null,
    totalInventory: product.inventory,
    featuredMedia: product.mediaId ? mediaView(product) : null,
    featuredImage: product.mediaId ? imageView(product) : null,
    media: (args: ConnectionArgs) =>
      paginate(withImage, args, (item) => ({ id: item.mediaId!, value: item.mediaId! }), mediaView, context.bulk),
    images: (args: ConnectionArgs) =>
      paginate(withImage, args, (item) => ({ id: item.mediaId!, value: item.mediaId! }), imageView, context.bulk),
    variants: (args: ConnectionArgs) =>
      paginate(
        [variant],
        args,
        () => ({ id: product.variantId, value: product.variantId }),
        (item) => item,
        context.bulk,
      ),
    variantsCount: count(1),
    priceRangeV2: { minVariantPrice: money(product.priceCents, currency), maxVariantPrice: money(product.priceCents, currency) },
  };
}

const PRODUCT_SEARCH = {
  status: (term: Parameters<typeof listPredicate>[0]) => listPredicate<Product>(term, (product) => product.status),
  created_at: (term: Parameters<typeof datePredicate>[0]) => datePredicate<Product>(term, (product) => product.createdAt),
  id: (term: Parameters<typeof numberPredicate>[0]) => numberPredicate<Product>(term, (product) => product.id),
};

const PRODUCT_SORT: Record<string, ((left: Product, right: Product) => number) | null> = {
  ID: null,
  CREATED_AT: null,
  TITLE: (left, right) => left.title.localeCompare(right.title) || left.id - right.id,
  INVENTORY_TOTAL: (left, right) => left.inventory - right.inventory || left.id - right.id,
};

export function filteredProducts(context: ResolverContext, args: Args): Product[] {
  const filter = searchFilter(args.query as string | null | undefined, PRODUCT_SEARCH);
  const sortKey = (args.sortKey as string | undefined) ?? 'ID';
  if (!(sortKey in PRODUCT_SORT))
    throw shopifyError(`The Shopify stand-in does not implement products(sortKey: ${sortKey})`, 'STAND_IN_NOT_IMPLEMENTED');
  const products = context.shop.products.filter(filter);
  const order = PRODUCT_SORT[sortKey];
  return order ? products.sort(order) : products;
}

export function productsConnection(context: ResolverContext, args: Args) {
  return paginate(
    filteredProducts(context, args),
    args as ConnectionArgs,
    (product) => ({ id: product.id, value: product.id }),
    (product) => productView(context, product),
    context.bulk,
  );
}

export function customerView(context: ResolverContext, customer: Customer) {
  return {
    __typename: 'Customer',
    id: gid('Customer', customer.id),
    legacyResourceId: String(customer.id),
    email: customer.email,
    createdAt: customer.createdAt.toISOString(),
    // UnsignedInt64 travels as a string in Shopify's JSON.
    numberOfOrders: String(customer.orderCount),
    amountSpent: money(0, context.shop.currency),
  };
}

function lineItemView(context: ResolverContext, order: Order, item: LineItem) {
  const currency = context.shop.currency;
  const product = context.shop.productsById.get(item.productId);
  const discountShare = order.subtotalCents === 0 ? 0 : order.discountCents / order.subtotalCents;
  const lineTotal = item.unitPriceCents * item.quantity;
  return {
    __typename: 'LineItem',
    id: gid('LineItem', item.id),
    title: item.title,
    name: item.title,
    quantity: item.quantity,
    currentQuantity: item.quantity - item.refundedQuantity,
    sku: `SKU-${item.productId}`,
    product: product ? productView(context, product) : null,
    variant: null,
    originalUnitPriceSet: moneyBag(item.unitPriceCents, currency),
    discountedTotalSet: () => moneyBag(Math.round(lineTotal * (1 - discountShare)), currency),
  };
}

function refundView(context: ResolverContext, order: Order, refund: Refund) {
  return {
    __typename: 'Refund',
    id: gid('Refund', refund.id),
    legacyResourceId: String(refund.id),
    createdAt: refund.createdAt.toISOString(),
    processedAt: refund.createdAt.toISOString(),
    updatedAt: refund.createdAt.toISOString(),
    note: refund.note,
    totalRefundedSet: moneyBag(refund.amountCents, context.shop.currency),
    order: () => orderView(context, order),
  };
}

export function refundedCents(order: Order): number {
  return order.refunds.reduce((sum, refund) => sum + refund.amountCents, 0);
}

export function financialStatus(order: Order): 'PAID' | 'PARTIALLY_REFUNDED' | 'REFUNDED' {
  const refunded = refundedCents(order);
  if (refunded === 0) return 'PAID';
  return refunded >= order.totalCents ? 'REFUNDED' : 'PARTIALLY_REFUNDED';
}

/**
 * The visit's referral code as Shopify reads it from the landing page: "Supports the following URL
 * attributes: ref, source, or r" (CustomerVisit.referralCode, REST `landing_site_ref`).
 */
export function referralCodeOf(landingSite: string | null): string | null {
  if (landingSite === null) return null;
  const query = new URL(landingSite, 'https://store.invalid').searchParams;
  return query.get('ref') ?? query.get('source') ?? query.get('r');
}

function visitView(order: Order, shop: ShopRecord, earlier = false) {
  const landingSite = earlier ? order.earlierLandingSite! : order.landingSite;
  if (landingSite === null) return null;
  const landingPage = new URL(landingSite, `https://${shop.primaryHost}`);
  const utm = landingPage.searchParams;
  const referrer = earlier ? null : order.referringSite;
  return {
    __typename: 'CustomerVisit',
    // Two visits per order at most: ids derived from the order's never meet another order's.
    id: gid('CustomerVisit', order.id * 2 + (earlier ? 0 : 1)),
    landingPage: landingPage.toString(),
    referrerUrl: referrer,
    referralCode: referralCodeOf(landingSite),
    source: referrer ? new URL(referrer).hostname : 'direct',
    sourceType: null,
    sourceDescription: null,
    occurredAt: order.createdAt.toISOString(),
    utmParameters: utm.has('utm_source')
      ? {
          source: utm.get('utm_source'),
          medium: utm.get('utm_medium'),
          campaign: utm.get('utm_campaign'),
          content: utm.get('utm_content'),
          term: utm.get('utm_term'),
        }
      : null,
  };
}

export function orderView(context: ResolverContext, order: Order): Record<string, unknown> {
  const currency = context.shop.currency;
  const customer = order.customerId === null ? undefined : context.shop.customers.get(order.customerId);
  const refunded = refundedCents(order);
  const visit = visitView(order, context.shop);
  const firstVisit = order.earlierLandingSite === undefined ? visit : visitView(order, context.shop, true);
  return {
    __typename: 'Order',
    id: gid('Order', order.id),
    legacyResourceId: String(order.id),
    name: `#${order.number}`,
    email: order.email,
    createdAt: order.createdAt.toISOString(),
    processedAt: order.createdAt.toISOString(),
    updatedAt: (order.cancelledAt ?? order.refunds.at(-1)?.createdAt ?? order.createdAt).toISOString(),
    cancelledAt: order.cancelledAt?.toISOString() ?? null,
    cancelReason: order.cancelReason?.toUpperCase() ?? null,
    test: false,
    customer: customer ? customerView(context, customer) : null,
    discountCode: order.discountCode,
    discountCodes: order.discountCode ? [order.discountCode] : [],
    customAttributes: order.noteAttributes.map((attribute) => ({ key: attribute.name, value: attribute.value })),
    note: null,
    sourceName: 'web',
    sourceIdentifier: null,
    landingPageUrl: visit?.landingPage ?? null,
    referrerUrl: order.referringSite,
    customerJourneySummary: {
      ready: true,
      customerOrderIndex: order.customerOrderIndex,
      daysToConversion: 0,
      firstVisit,
      lastVisit: visit,
      momentsCount: count((visit ? 1 : 0) + (firstVisit === visit || !firstVisit ? 0 : 1)),
    },
    displayFinancialStatus: financialStatus(order),
    subtotalPriceSet: moneyBag(order.subtotalCents - order.discountCents, currency),
    totalDiscountsSet: moneyBag(order.discountCents, currency),
    totalPriceSet: moneyBag(order.totalCents, currency),
    currentTotalPriceSet: moneyBag(order.totalCents - refunded, currency),
    totalRefundedSet: moneyBag(refunded, currency),
    lineItems: (args: ConnectionArgs) =>
      paginate(
        order.lineItems,
        args,
        (item) => ({ id: item.id, value: item.id }),
        (item) => lineItemView(context, order, item),
        context.bulk,
      ),
    refunds: (args: { first?: number | null }) =>
      order.refunds.slice(0, args.first ?? undefined).map((refund) => refundView(context, order, refund)),
  };
}

const ORDER_SEARCH = {
  created_at: (term: Parameters<typeof datePredicate>[0]) => datePredicate<Order>(term, (order) => order.createdAt),
  processed_at: (term: Parameters<typeof datePredicate>[0]) => datePredicate<Order>(term, (order) => order.createdAt),
  financial_status: (term: Parameters<typeof listPredicate>[0]) => listPredicate<Order>(term, (order) => financialStatus(order)),
  id: (term: Parameters<typeof numberPredicate>[0]) => numberPredicate<Order>(term, (order) => order.id),
};

/** The orders an app may see: everything with read_all_orders, else the last 60 days. */
export function visibleOrders(context: ResolverContext, query: unknown): Order[] {
  const filter = searchFilter(query as string | null | undefined, ORDER_SEARCH);
  const since = hasScope(context.scopes, 'read_all_orders') ? -Infinity : context.core.now().getTime() - RECENT_ORDERS_DAYS * 86_400_000;
  return context.shop.orders.filter((order) => order.createdAt.getTime() >= since && filter(order));
}

export function ordersConnection(context: ResolverContext, args: Args) {
  const sortKey = (args.sortKey as string | undefined) ?? 'PROCESSED_AT';
  // Orders are kept in the order they were placed, so these three sorts are the stored order.
  if (!['PROCESSED_AT', 'CREATED_AT', 'ID'].includes(sortKey)) {
    throw shopifyError(`The Shopify stand-in does not implement orders(sortKey: ${sortKey})`, 'STAND_IN_NOT_IMPLEMENTED');
  }
  const orders = visibleOrders(context, args.query);
  return paginate(
    orders,
    args as ConnectionArgs,
    (order) => ({ id: order.id, value: order.createdAt.getTime() }),
    (order) => orderView(context, order),
    context.bulk,
  );
}
