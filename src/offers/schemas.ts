import { Type } from 'typebox';
import { EXAMPLE_PLATFORM_ID, StringEnum } from '../http/schemas.js';

export const OFFER_TYPES = ['post-purchase'] as const;

export const OffersQuery = Type.Object({
  type: StringEnum(OFFER_TYPES, {
    description: 'Offer type; only post-purchase (offers shown after checkout)',
    examples: ['post-purchase'],
  }),
});

export const OffersHeaders = Type.Object({
  'x-platform-id': Type.Optional(
    Type.String({
      description:
        'Platform displaying the offers (UUID). Required with an API key; optional with an OAuth token that carries the platform, ' +
        "and then equal to it. A brand's own site sends the service's platform id.",
      examples: [EXAMPLE_PLATFORM_ID],
    }),
  ),
});

const EXAMPLE_OFFER = {
  imageUrl: 'https://harborandvine.example/offer.jpg',
  referralUrl: 'https://api.partner-collab.example/r/SGFyYm9yIGFuZCBWaW5lLmNoZWNrb3V0LWNv',
  title: '15% off freshly roasted beans',
  subtitle: 'Small-batch coffee, roasted to order',
};

export const Offer = Type.Object(
  {
    imageUrl: Type.String({ description: 'URL of the offer image' }),
    referralUrl: Type.String({ description: 'Link exactly as returned, with no parameters added; specific to the requesting platform' }),
    title: Type.String({ description: 'Primary offer text' }),
    subtitle: Type.Optional(Type.String({ description: 'Supporting text; omitted when the offer has none' })),
  },
  { title: 'Offer', examples: [EXAMPLE_OFFER] },
);

export const OffersResponse = Type.Object(
  { offers: Type.Array(Offer, { maxItems: 6 }) },
  {
    title: 'OffersResponse',
    examples: [
      {
        offers: [
          EXAMPLE_OFFER,
          {
            imageUrl: 'https://trailpeak.example/offer.jpg',
            referralUrl: 'https://api.partner-collab.example/r/Qm9vdHMgYW5kIHRlbnRzLnRyYWlscGVhaw',
            title: '10% off tents and trekking gear',
          },
        ],
      },
    ],
  },
);
