import { Type, type Static } from 'typebox';
import { OneLineText, StringEnum } from '../http/schemas.js';

export const MAX_SYNC_BRANDS = 1000;

export const SyncBrand = Type.Object(
  {
    domain: Type.String({ description: 'Website of the brand; normalized before storing (SPEC 4.2)', maxLength: 2048 }),
    businessName: Type.Optional(OneLineText({ maxLength: 100, description: 'Stored as the brand name when sent' })),
    status: Type.Optional(StringEnum(['active', 'closed'] as const, { description: 'Default active' })),
  },
  { title: 'SyncBrand' },
);

export const SyncBrandsBody = Type.Object(
  {
    brands: Type.Array(SyncBrand, { maxItems: MAX_SYNC_BRANDS }),
    platformId: Type.Optional(Type.String({ description: 'If sent, must equal the platform of the key' })),
  },
  {
    title: 'SyncBrandsRequest',
    examples: [
      {
        brands: [
          { domain: 'https://www.Northwind-Outfitters.example/shop', businessName: 'Northwind' },
          { domain: 'old-brand.example', status: 'closed' },
        ],
      },
    ],
  },
);
export type SyncBrandsBody = Static<typeof SyncBrandsBody>;

export const SyncBrandsResponse = Type.Object(
  {
    received: Type.Integer({ description: 'Items in this request' }),
    created: Type.Integer({ description: 'Records created by this request' }),
    updated: Type.Integer({ description: 'Existing records updated by this request' }),
  },
  { title: 'SyncBrandsResponse', examples: [{ received: 2, created: 1, updated: 1 }] },
);
