import type { Customer, IdAllocator, Order, Product } from './model.js';

/**
 * Makes up a shop's catalog and order history from a seed: the same seed gives the same titles,
 * prices, statuses, images, customers and orders. Ids come from the stand-in's allocator.
 * Built for size: 10,000 products and 50,000 orders take well under a second.
 */
export interface GeneratedShopData {
  products: Product[];
  customers: Customer[];
  orders: Order[];
}

export interface GeneratorOptions {
  seed: string;
  products: number;
  orders: number;
  now: Date;
  /** Share of products without an image, 0 to 1. */
  withoutImagesShare: number;
  /** Share of products not ACTIVE (DRAFT or ARCHIVED), 0 to 1. */
  inactiveShare: number;
}

const ADJECTIVES = [
  'Classic',
  'Everyday',
  'Organic',
  'Small-Batch',
  'Heritage',
  'Modern',
  'Wild',
  'Cozy',
  'Bright',
  'Rustic',
  'Coastal',
  'Alpine',
];
const NOUNS = [
  'Tee',
  'Mug',
  'Candle',
  'Tote',
  'Blend',
  'Serum',
  'Blanket',
  'Bottle',
  'Notebook',
  'Scarf',
  'Soap',
  'Planter',
  'Cap',
  'Kit',
  'Sampler',
];
const VENDORS = ['House Brand', 'Northside Makers', 'Field & Co', 'Studio Nine'];
const TYPES = ['Apparel', 'Home', 'Beauty', 'Food', 'Outdoor', 'Stationery'];
const DAY_MS = 86_400_000;
const HISTORY_DAYS = 730;

/** mulberry32 over a hash of the seed: tiny, fast, and deterministic, which is all a catalog needs. */
export function seededRandom(seed: string): () => number {
  let state = 2166136261;
  for (let index = 0; index < seed.length; index++) state = Math.imul(state ^ seed.charCodeAt(index), 16777619);
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value = (value + Math.imul(value ^ (value >>> 7), 61 | value)) ^ value;
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

export function generateShopData(ids: IdAllocator, domain: string, options: GeneratorOptions): GeneratedShopData {
  const random = seededRandom(options.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const nowMs = options.now.getTime();
  const catalogStart = nowMs - (HISTORY_DAYS + 30) * DAY_MS;

  const firstProductId = ids.reserve('Product', options.products);
  const firstVariantId = ids.reserve('ProductVariant', options.products);
  const firstMediaId = ids.reserve('MediaImage', options.products);
  const products: Product[] = new Array(options.products);
  for (let index = 0; index < options.products; index++) {
    const title = `${pick(ADJECTIVES)} ${pick(NOUNS)} ${index + 1}`;
    const handle = title.toLowerCase().replace(/[^a-z0-9]+/g, '-');
    const hasImage = random() >= options.withoutImagesShare;
    const inactive = random() < options.inactiveShare;
    products[index] = {
      id: firstProductId + index,
      variantId: firstVariantId + index,
      mediaId: hasImage ? firstMediaId + index : null,
      title,
      handle,
      vendor: pick(VENDORS),
      productType: pick(TYPES),
      status: inactive ? (random() < 0.5 ? 'DRAFT' : 'ARCHIVED') : 'ACTIVE',
      createdAt: new Date(catalogStart + Math.floor((index / Math.max(1, options.products)) * 30 * DAY_MS)),
      imageUrl: hasImage ? `https://cdn.shopify.com/s/files/1/standin/${domain.split('.')[0]}/products/${handle}.jpg` : null,
      priceCents: 500 + Math.floor(random() * 190) * 50,
      inventory: Math.floor(random() * 200),
    };
  }

  // Fewer customers than orders, so some customers come back; the skew makes a few loyal ones.
  const customerCount = Math.max(1, Math.ceil(options.orders * 0.6));
  const firstCustomerId = ids.reserve('Customer', customerCount);
  const customers: Customer[] = new Array(customerCount);
  for (let index = 0; index < customerCount; index++) {
    const id = firstCustomerId + index;
    customers[index] = { id, email: `customer${id}@example.com`, createdAt: new Date(catalogStart), orderCount: 0 };
  }

  const firstOrderId = ids.reserve('Order', options.orders);
  const orders: Order[] = new Array(options.orders);
  const historyStart = nowMs - HISTORY_DAYS * DAY_MS;
  const spacing = (HISTORY_DAYS * DAY_MS - 3_600_000) / Math.max(1, options.orders);
  for (let index = 0; index < options.orders; index++) {
    const customer = customers[Math.floor(customerCount * random() * random())]!;
    customer.orderCount += 1;
    const lineCount = 1 + Math.floor(random() * 3);
    const lineItems = [];
    let subtotalCents = 0;
    for (let line = 0; line < lineCount && products.length > 0; line++) {
      // Squaring the draw makes low-index products sell far more: there are best sellers to find.
      const product = products[Math.floor(products.length * random() * random())]!;
      const quantity = 1 + Math.floor(random() * 3);
      subtotalCents += product.priceCents * quantity;
      lineItems.push({
        id: ids.next('LineItem'),
        productId: product.id,
        variantId: product.variantId,
        title: product.title,
        quantity,
        unitPriceCents: product.priceCents,
        refundedQuantity: 0,
      });
    }
    const createdAt = new Date(Math.floor(historyStart + index * spacing));
    orders[index] = {
      id: firstOrderId + index,
      number: 1001 + index,
      createdAt,
      customerId: customer.id,
      email: customer.email,
      lineItems,
      subtotalCents,
      discountCents: 0,
      totalCents: subtotalCents,
      discountCode: null,
      landingSite: '/',
      referringSite: null,
      noteAttributes: [],
      customerOrderIndex: customer.orderCount,
      presentment: null,
      cancelledAt: null,
      cancelReason: null,
      refunds: [],
    };
  }
  return { products, customers, orders };
}
