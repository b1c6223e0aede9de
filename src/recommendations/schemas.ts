import { Type, type Static } from 'typebox';

export const MAX_RECOMMENDATIONS = 50;

export const Recommendation = Type.Object(
  {
    domain: Type.Optional(Type.String({ description: 'Brand website domain' })),
    businessName: Type.Optional(Type.String({ description: 'Brand name' })),
    logoImageUrl: Type.Optional(Type.String({ description: 'Omitted when no logo' })),
    description: Type.Optional(Type.String({ description: 'Short description; omitted when none' })),
    matchRate: Type.Optional(
      Type.Integer({ minimum: 0, maximum: 100, description: 'Match score for the caller, 0-100; omitted when not yet scored' }),
    ),
    businessSize: Type.Optional(Type.String({ description: 'Size label such as Medium; omitted when unknown' })),
    country: Type.Optional(Type.String({ description: 'Primary country name; omitted when unknown' })),
    categories: Type.Array(Type.String(), { description: 'Category names; empty when none' }),
    productCount: Type.Optional(Type.Integer({ description: 'Catalog size; omitted when unknown' })),
    platform: Type.Optional(Type.String({ description: 'Commerce platform name; omitted when unknown' })),
  },
  {
    title: 'Recommendation',
    examples: [
      {
        domain: 'lumenskincare.example',
        businessName: 'Lumen Skincare',
        logoImageUrl: 'https://lumenskincare.example/logo.png',
        description: 'Fragrance-free, dermatologist-formulated daily skincare.',
        matchRate: 70,
        businessSize: 'Medium',
        country: 'Canada',
        categories: ['Beauty', 'Skincare'],
        productCount: 85,
        platform: 'Shopify',
      },
    ],
  },
);
export type Recommendation = Static<typeof Recommendation>;

export const RecommendationsResponse = Type.Object(
  {
    data: Type.Array(Recommendation, { maxItems: MAX_RECOMMENDATIONS }),
    totalRows: Type.Integer({ description: 'Number of recommendations in this result' }),
  },
  {
    title: 'RecommendationsResponse',
    examples: [
      {
        data: [
          {
            domain: 'lumenskincare.example',
            businessName: 'Lumen Skincare',
            logoImageUrl: 'https://lumenskincare.example/logo.png',
            description: 'Fragrance-free, dermatologist-formulated daily skincare.',
            matchRate: 70,
            businessSize: 'Medium',
            country: 'Canada',
            categories: ['Beauty', 'Skincare'],
            productCount: 85,
            platform: 'Shopify',
          },
          { domain: 'greenleaftea.example', businessName: 'Greenleaf Tea Co.', categories: ['Food & Beverage', 'Tea'] },
        ],
        totalRows: 2,
      },
    ],
  },
);
