import crypto from 'node:crypto';

/**
 * Makes up a believable store for any domain, the same one every time for the same domain, so
 * the sandbox needs no set-up: a merchant types a domain and has a catalog and order history.
 * The store of a brand already in the network (the demo brands) takes its name, country and kind
 * of catalog from the brand.
 * A few prefixes of the domain pick the cases a tester wants to see (documented in docs/plugin.md):
 *   new-…      3 orders (not eligible yet)
 *   noimages-… products without images (not eligible yet)
 *   slow-…     imports fail until setup has run past the delayed threshold (the adapter counts how many)
 *   promo-…    the store already gives new customers 15 %
 */
export interface GeneratedStore {
  businessName: string;
  tagline: string;
  category: string;
  country: string;
  welcomeDiscountPercent: number | null;
  /** Whether the store's first imports fail (a `slow-` store). */
  slow: boolean;
  products: Array<{ id: string; title: string; hasImage: boolean; priceCents: number; active: boolean }>;
  orders: Array<{ id: string; productId: string; quantity: number; totalCents: number; placedAt: Date; customerEmail: string }>;
}

/**
 * What a store sells, by kind of business. A store gets the catalog whose words its name and its
 * brand's categories use most (an outfitter sells outdoor gear, a candle maker candles); a name
 * that says nothing gets one picked from the domain.
 */
const CATALOGS: Record<string, { words: string[]; tagline: string; items: string[] }> = {
  Outdoor: {
    words: ['outdoor', 'outdoors', 'outfitter', 'outfitters', 'trail', 'camp', 'camping', 'gear', 'hiking', 'trek', 'adventure'],
    tagline: 'Gear for days outside',
    items: [
      'Rain Shell',
      'Day Pack',
      'Headlamp',
      'Trekking Poles',
      'Camp Blanket',
      'Trail Bottle',
      'Fleece Jacket',
      'Hammock',
      'Wool Gloves',
      'Map Case',
    ],
  },
  Apparel: {
    words: ['apparel', 'clothing', 'clothes', 'fashion', 'wear', 'tees', 'denim', 'knits'],
    tagline: 'Everyday clothes made to last',
    items: [
      'Organic Tee',
      'Merino Crew',
      'Canvas Jacket',
      'Everyday Chino',
      'Wool Socks',
      'Linen Shirt',
      'Knit Beanie',
      'Tote Bag',
      'Denim Overshirt',
      'Hoodie',
    ],
  },
  Swimwear: {
    words: ['swim', 'swimwear', 'beach', 'surf'],
    tagline: 'Swimwear made from recovered ocean plastics',
    items: [
      'One-Piece Swimsuit',
      'Bikini Top',
      'Bikini Bottom',
      'Board Shorts',
      'Rash Guard',
      'Beach Towel',
      'Swim Trunks',
      'Cover-Up',
      'Sun Hat',
      'Dry Bag',
    ],
  },
  Coffee: {
    words: ['coffee', 'roaster', 'roasters', 'roastery', 'espresso', 'beans', 'cafe'],
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
  Tea: {
    words: ['tea', 'teas', 'matcha', 'chai'],
    tagline: 'Single-estate teas from family gardens',
    items: [
      'Darjeeling First Flush',
      'Sencha',
      'Earl Grey',
      'Jasmine Pearls',
      'Chamomile',
      'Matcha Tin',
      'Oolong',
      'Glass Teapot',
      'Tea Sampler',
      'Gift Card',
    ],
  },
  Bakery: {
    words: ['bakery', 'bakes', 'bread', 'cake', 'cakes', 'pastry', 'food', 'pantry', 'snacks'],
    tagline: 'Baked this morning, delivered tomorrow',
    items: [
      'Sourdough Loaf',
      'Butter Croissants',
      'Cinnamon Buns',
      'Rye Bread',
      'Granola Jar',
      'Shortbread Tin',
      'Baguette',
      'Focaccia',
      'Brownie Box',
      'Gift Card',
    ],
  },
  Skincare: {
    words: [
      'skincare',
      'skin',
      'beauty',
      'cosmetics',
      'botanicals',
      'apothecary',
      'bodycare',
      'soap',
      'soaps',
      'soapworks',
      'bath',
      'lotion',
    ],
    tagline: 'Clean skincare with ingredients you can read',
    items: [
      'Daily Cleanser',
      'Vitamin C Serum',
      'Night Cream',
      'Mineral Sunscreen',
      'Lip Balm',
      'Exfoliating Toner',
      'Eye Cream',
      'Body Oil',
      'Face Oil',
      'Clay Mask',
    ],
  },
  Candles: {
    words: ['candle', 'candles', 'wax', 'wick', 'scents', 'gifts'],
    tagline: 'Hand-poured soy candles with wooden wicks',
    items: [
      'Cedar & Smoke Candle',
      'Fig Leaf Candle',
      'Sea Salt Candle',
      'Amber Candle',
      'Travel Tin Trio',
      'Reed Diffuser',
      'Wick Trimmer',
      'Candle Snuffer',
      'Matches',
      'Gift Set',
    ],
  },
  Home: {
    words: ['home', 'garden', 'furniture', 'decor', 'kitchen', 'living', 'goods'],
    tagline: 'Calm, useful things for the home',
    items: [
      'Linen Throw',
      'Stoneware Mug',
      'Oak Side Table',
      'Cotton Towel Set',
      'Glass Carafe',
      'Oak Tray',
      'Wool Rug',
      'Table Lamp',
      'Planter',
      'Napkin Set',
    ],
  },
  Pets: {
    words: ['pet', 'pets', 'dog', 'dogs', 'cat', 'cats', 'paw', 'paws', 'pawsome', 'puppy'],
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
  Kids: {
    words: ['kids', 'kid', 'toys', 'toy', 'baby', 'children'],
    tagline: 'Wooden toys and organic cotton for little ones',
    items: [
      'Wooden Blocks',
      'Stacking Rings',
      'Organic Romper',
      'Puzzle Map',
      'Pull-Along Duck',
      'Crayon Set',
      'Play Tent',
      'Soft Rabbit',
      'Balance Bike',
      'Story Book',
    ],
  },
  Travel: {
    words: ['travel', 'bags', 'bag', 'luggage', 'accessories', 'carry'],
    tagline: 'Bags with a lifetime warranty',
    items: [
      'Carry-On Roller',
      'Weekender Bag',
      'Packing Cubes',
      'Travel Backpack',
      'Toiletry Kit',
      'Passport Wallet',
      'Neck Pillow',
      'Luggage Tag',
      'Garment Bag',
      'Daypack',
    ],
  },
  Fitness: {
    words: ['fitness', 'gym', 'sports', 'sport', 'training', 'equipment'],
    tagline: 'Commercial-grade gear for your garage',
    items: [
      'Adjustable Dumbbells',
      'Kettlebell',
      'Power Rack',
      'Olympic Barbell',
      'Bumper Plates',
      'Jump Rope',
      'Resistance Bands',
      'Flat Bench',
      'Yoga Mat',
      'Foam Roller',
    ],
  },
  Nutrition: {
    words: ['nutrition', 'protein', 'supplements', 'health', 'electrolytes', 'vitamins'],
    tagline: 'Third-party tested nutrition for athletes',
    items: [
      'Whey Protein',
      'Plant Protein',
      'Electrolyte Mix',
      'Creatine',
      'Protein Bars',
      'Shaker Bottle',
      'Pre-Workout',
      'Multivitamin',
      'Recovery Blend',
      'Sampler Pack',
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

/** What the network knows of the brand whose store this is, when it is one (a demo brand, say). */
export interface KnownBrand {
  businessName: string | null;
  categories: readonly string[];
  country: string | null;
}

const wordsOf = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter(Boolean);

/**
 * The catalog whose words the store's name (twice as telling) and its brand's categories use
 * most; ties go to the catalog listed first. Undefined when nothing matches.
 */
export function catalogFor(name: string, categories: readonly string[]): string | undefined {
  const counts = new Map<string, number>();
  for (const word of wordsOf(name)) counts.set(word, (counts.get(word) ?? 0) + 2);
  for (const word of categories.flatMap(wordsOf)) counts.set(word, (counts.get(word) ?? 0) + 1);
  let best: { name: string; score: number } | undefined;
  for (const [catalog, { words }] of Object.entries(CATALOGS)) {
    const score = words.reduce((sum, word) => sum + (counts.get(word) ?? 0), 0);
    if (score > 0 && (!best || score > best.score)) best = { name: catalog, score };
  }
  return best?.name;
}

export function generateStore(domain: string, now: Date, brand?: KnownBrand): GeneratedStore {
  const random = seededRandom(domain);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const firstLabel = domain.split('.')[0] ?? domain;
  const prefix = /^(new|noimages|slow|promo)-/.exec(firstLabel)?.[1];
  const nameWords = prefix ? firstLabel.slice(prefix.length + 1) : firstLabel;
  const businessName = brand?.businessName ?? (titleCase(nameWords) || domain);
  // Drawn either way, so the catalog's random numbers stay where they were for every store.
  const drawn = pick(Object.keys(CATALOGS));
  const category = catalogFor(`${businessName} ${nameWords}`, brand?.categories ?? []) ?? drawn;
  const catalog = CATALOGS[category]!;

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
    businessName,
    tagline: catalog.tagline,
    category,
    country: brand?.country ?? pick(COUNTRIES),
    welcomeDiscountPercent: prefix === 'promo' ? 15 : null,
    slow: prefix === 'slow',
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
    '<text x="160" y="190" font-family="Helvetica, Arial, sans-serif" font-size="110" font-weight="700" fill="#ffffff" ' +
    `text-anchor="middle">${initials}</text>` +
    `</svg>`
  );
}
