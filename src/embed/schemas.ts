import { Type } from 'typebox';

export const StoreQuery = Type.Object({
  platformId: Type.String({ description: 'The platform id (UUID) the plugin was started with' }),
  domain: Type.String({ description: "The merchant's store domain; scheme, path and a leading www. are dropped" }),
});

export const EmbedPageQuery = Type.Object({
  platformId: Type.String(),
  domain: Type.String(),
  mode: Type.Optional(Type.Union([Type.Literal('page'), Type.Literal('drawer')])),
  ancestors: Type.Optional(
    Type.String({ description: 'Origins the loader sees around the host page, space separated: only ever a reason to refuse' }),
  ),
});

export const ConsentBody = Type.Object(
  {
    platformId: Type.String(),
    domain: Type.String(),
    discountPercent: Type.Optional(Type.Union([Type.Literal(10), Type.Literal(15), Type.Literal(20), Type.Literal(25)])),
    acceptTerms: Type.Literal(true, { description: 'The merchant accepts the terms and privacy policy' }),
  },
  { additionalProperties: false },
);

export const StoreBody = Type.Object({ platformId: Type.String(), domain: Type.String() }, { additionalProperties: false });

export const StateBody = Type.Object(
  {
    platformId: Type.String(),
    domain: Type.String(),
    challenge: Type.Optional(
      Type.String({
        pattern: '^[0-9a-f]{64}$',
        description: "The hash of the embed app's secret: the state its commerce-platform links carry",
      }),
    ),
  },
  { additionalProperties: false },
);

export const TokenBody = Type.Object(
  {
    platformId: Type.String(),
    domain: Type.String(),
    secret: Type.String({
      minLength: 1,
      maxLength: 100,
      description: "The embed app page's secret, whose hash the store's owner confirmed at the commerce platform",
    }),
  },
  { additionalProperties: false },
);

export const MerchantToken = Type.Object({
  token: Type.String({ description: 'Sent as Authorization: Bearer on the consent and turn-on calls' }),
  expiresAt: Type.String({ format: 'date-time' }),
});
