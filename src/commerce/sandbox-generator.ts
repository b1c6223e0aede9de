import crypto from 'node:crypto';

/**
 * Makes up a believable store for any domain, the same one every time for the same domain, so
 * the sandbox needs no set-up: a merchant types a domain and has a catalog and order history.
 * A few prefixes of the domain pick the cases a tester wants to see (documented in docs/plugin.md):
 *   new-…      3 orders (not eligible yet)
 *   noimages-… products without images (not eligible yet)
 *   slow-…     the first imports fail, so setup runs long and shows the delayed stage
 *   promo-…    the store already gives new customers 15 %
 */
export interface GeneratedStore {
  businessName: string;
  tagline: string;
  category: string;
  country: string;
  welcomeDiscountPercent: number | null;
  importFailures: number;
  products: Array<{ id: string; title: string; hasImage: boolean; priceCents: number; active: boolean }>;
  orders: Array<{ id: string; productId: string; quantity: number; totalCents: number; placedAt: Date; customerEmail: string }>;
}

const CATALOGS: Record<string, { tagline: string; items: string[] }> = {
  Coffee: {
    tagline: 'Small-batch coffee, roasted the day it ships',
    items: [
      'House Espresso',
      'Ethiopia Guji',
      'Colombia Huila',
      'Decaf Swiss Water',
      'Cold Brew Pack',
      'Pour-Over Kit',
      'Ceramic Dripper',
      'Burr Grinder',
      'Sampler Box',
      'Gift Card',
    ],
  },
  Skincare: {
    tagline: 'Clean skincare with ingredients you can read',
    items: [
      'Daily Cleanser',
      'Vitamin C Serum',
      'Night Cream',
      'Mineral Sunscreen',
      'Lip Balm',
      'Exfoliating Toner',
      'Eye Cream',
      'Travel Set',
      'Face Oil',
      'Clay Mask',
    ],
  },
  Apparel: {
    tagline: 'Everyday clothes made to last',
    items: [
      'Organic Tee',
      'Merino Crew',
      'Canvas Jacket',
      'Everyday Chino',
      'Wool Socks',
      'Linen Shirt',
      'Rain Shell',
      'Knit Beanie',
      'Tote Bag',
      'Denim Overshirt',
    ],
  },
  Home: {
    tagline: 'Calm, useful things for the home',
    items: [
      'Linen Throw',
      'Stoneware Mug',
      'Soy Candle',
      'Cotton Towel Set',
      'Glass Carafe',
      'Oak Tray',
      'Wool Rug',
      'Table Lamp',
      'Planter',
      'Napkin Set',
    ],
  },
  Outdoor: {
    tagline: 'Gear for days outside',
    items: [
      'Trail Bottle',
      'Camp Blanket',
      'Headlamp',
      'Day Pack',
      'Enamel Cup',
      'Trekking Poles',
      'Hammock',
      'Fire Starter',
      'Map Case',
      'Wool Gloves',
    ],
  },
  Pets: {
    tagline: 'Treats and toys pets actually love',
    items: [
      'Salmon Treats',
      'Rope Toy',
      'Calming Bed',
      'Leather Collar',
      'Travel Bowl',
      'Grooming Brush',
      'Chew Sticks',
      'Puzzle Feeder',
      'Raincoat',
      'Dental Chews',
    ],
  },
};
const COUNTRIES = ['United States', 'Canada', 'United Kingdom', 'Australia', 'Germany'];

function seededRandom(seed: string): () => number {
  let state = crypto.createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  return () => {
    // xorshift32: small, fast and good enough to make up a catalog.
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 4_294_967_296;
  };
}

function titleCase(words: string): string {
  return words
    .split(/[-_.]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join(' ');
}

export function generateStore(domain: string, now: Date): GeneratedStore {
  const random = seededRandom(domain);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const firstLabel = domain.split('.')[0] ?? domain;
  const prefix = /^(new|noimages|slow|promo)-/.exec(firstLabel)?.[1];
  const category = pick(Object.keys(CATALOGS));
  const catalog = CATALOGS[category]!;
  const nameWords = prefix ? firstLabel.slice(prefix.length + 1) : firstLabel;

  const productCount = 6 + Math.floor(random() * 5);
  const products = catalog.items.slice(0, productCount).map((title, index) => ({
    id: `p${index + 1}`,
    title,
    hasImage: prefix !== 'noimages',
    priceCents: (12 + Math.floor(random() * 80)) * 100 + 99,
    // The last product is a draft, as in most real catalogs.
    active: index < productCount - 1,
  }));

  const orderCount = prefix === 'new' ? 3 : 40 + Math.floor(random() * 120);
  const dayMs = 86_400_000;
  // Customers come from their own sequence, so catalogs and order histories stay as they were.
  const customerRandom = seededRandom(`${domain}#customers`);
  const customerPool = Math.max(1, Math.round(orderCount * 0.7));
  const orders = Array.from({ length: orderCount }, (_, index) => {
    // Skewed towards the first products, so best sellers stand out.
    const product = products[Math.floor(random() ** 2 * (products.length - 1))]!;
    const quantity = 1 + Math.floor(random() * 3);
    return {
      id: `#${1001 + index}`,
      productId: product.id,
      quantity,
      totalCents: product.priceCents * quantity,
      placedAt: new Date(now.getTime() - Math.floor(random() * 180 * dayMs)),
      // About a third of the orders come from returning customers.
      customerEmail: `customer${1 + Math.floor(customerRandom() * customerPool)}@${domain}`,
    };
  });

  return {
    businessName: titleCase(nameWords) || domain,
    tagline: catalog.tagline,
    category,
    country: pick(COUNTRIES),
    welcomeDiscountPercent: prefix === 'promo' ? 15 : null,
    importFailures: prefix === 'slow' ? 3 : 0,
    products,
    orders,
  };
}

const PALETTE = ['#2f6f5e', '#8a4b2a', '#3d5a99', '#7a3e6e', '#5c6b2e', '#a0522d', '#2e6b80', '#6b4f9e'];

/** A simple picture for a product or a logo: a coloured tile with initials. */
export function placeholderSvg(seed: string, label: string): string {
  const random = seededRandom(seed);
  const color = PALETTE[Math.floor(random() * PALETTE.length)]!;
  const initials = label
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((word) => word[0]!.toUpperCase())
    .join('')
    .replace(/[^A-Z0-9]/g, '');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="320" height="320" viewBox="0 0 320 320">` +
    `<rect width="320" height="320" rx="24" fill="${color}"/>` +
    `<circle cx="250" cy="70" r="90" fill="#ffffff" fill-opacity="0.12"/>` +
    `<text x="160" y="190" font-family="Helvetica, Arial, sans-serif" font-size="110" font-weight="700" fill="#ffffff" text-anchor="middle">${initials}</text>` +
    `</svg>`
  );
}
