import { Type } from 'typebox';
import { StringEnum } from '../http/schemas.js';

export const OFFER_TYPES = ['post-purchase'] as const;

export const OffersQuery = Type.Object({
  type: StringEnum(OFFER_TYPES, { description: 'Offer type; only post-purchase (offers shown after checkout)' }),
});

export const OffersHeaders = Type.Object({
  'x-platform-id': Type.Optional(
    Type.String({
      description:
        'Platform displaying the offers (UUID). Required with an API key; optional with an OAuth token that carries the platform, ' +
        "and then equal to it. A brand's own site sends the service's platform id.",
    }),
  ),
});

export const Offer = Type.Object(
  {
    imageUrl: Type.String({ description: 'URL of the offer image' }),
    referralUrl: Type.String({ description: 'Link exactly as returned, with no parameters added; specific to the requesting platform' }),
    title: Type.String({ description: 'Primary offer text' }),
    subtitle: Type.Optional(Type.String({ description: 'Supporting text; omitted when the offer has none' })),
  },
  { title: 'Offer' },
);

export const OffersResponse = Type.Object({ offers: Type.Array(Offer, { maxItems: 6 }) }, { title: 'OffersResponse' });
