import { Type, type Static } from 'typebox';
import { StringEnum } from '../http/schemas.js';

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

/** One factor of a match rate as the scorer counted it (src/recommendations/scoring.ts, `MatchTerm`). */
export const MatchTerm = Type.Object({
  factor: StringEnum(['categories', 'country', 'businessSize', 'catalogSize', 'commercePlatform'] as const),
  weight: Type.Integer({ description: 'The most points this factor gives' }),
  points: Type.Integer({ description: 'The points it gave; the terms add up to matchRate' }),
  missing: Type.Optional(StringEnum(['you', 'them', 'both'] as const, { description: 'Whose profile lacks the fact; it gave nothing' })),
  shared: Type.Optional(Type.Array(Type.String(), { description: 'Categories both brands name' })),
  same: Type.Optional(Type.String({ description: 'The country or commerce platform both brands name' })),
});
export type MatchTerm = Static<typeof MatchTerm>;

/** A recommendation with its match rate's terms (the dashboard's; the v1 answer is SPEC 2.4's fields only). */
export const ExplainedRecommendation = Type.Object({ ...Recommendation.properties, matchTerms: Type.Optional(Type.Array(MatchTerm)) });
export type ExplainedRecommendation = Static<typeof ExplainedRecommendation>;

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
