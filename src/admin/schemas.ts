import { Type, type Static, type TSchema } from 'typebox';
import { OneLineText, StringEnum } from '../http/schemas.js';
import { Company } from '../companies/schemas.js';

export const Uuid = Type.String({ format: 'uuid', description: 'UUID' });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const OfferType = StringEnum(['post-purchase'] as const);
const Origin = Type.String({ minLength: 1, maxLength: 300, description: 'Protocol, host and optional port: https://app.example' });
const HttpUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'Absolute http or https URL' });

const platformFields = {
  name: OneLineText({ minLength: 1, maxLength: 100 }),
  active: Type.Boolean(),
  offerTypes: Type.Array(OfferType, { maxItems: 10, uniqueItems: true, description: 'Offer types the platform shows' }),
  approvedOrigins: Type.Array(Origin, { maxItems: 50, description: 'Origins the plugin may load on (SPEC 4.7)' }),
  pluginPageUrl: Nullable(HttpUrl),
};

export const CreatePlatformBody = Type.Object(
  {
    id: Type.Optional(Type.String({ format: 'uuid', description: 'Generated when not given' })),
    name: platformFields.name,
    active: Type.Optional(platformFields.active),
    offerTypes: Type.Optional(platformFields.offerTypes),
    approvedOrigins: Type.Optional(platformFields.approvedOrigins),
    pluginPageUrl: Type.Optional(platformFields.pluginPageUrl),
  },
  { additionalProperties: false },
);
export type CreatePlatformBody = Static<typeof CreatePlatformBody>;

export const UpdatePlatformBody = Type.Object(
  {
    name: Type.Optional(platformFields.name),
    active: Type.Optional(platformFields.active),
    offerTypes: Type.Optional(platformFields.offerTypes),
    approvedOrigins: Type.Optional(platformFields.approvedOrigins),
    pluginPageUrl: Type.Optional(platformFields.pluginPageUrl),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdatePlatformBody = Static<typeof UpdatePlatformBody>;

export const Platform = Type.Object({
  id: Type.String(),
  name: Type.String(),
  active: Type.Boolean(),
  offerTypes: Type.Array(Type.String()),
  approvedOrigins: Type.Array(Type.String()),
  pluginPageUrl: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});

const Timestamp = Nullable(Type.String());

export const PlatformDetail = Type.Object({
  ...Platform.properties,
  keys: Type.Array(
    Type.Object({
      keyId: Type.String(),
      lastFour: Type.String(),
      environment: Type.String(),
      expiresAt: Timestamp,
      revokedAt: Timestamp,
      createdAt: Type.String(),
      lastUsedAt: Timestamp,
    }),
  ),
});

export const PlatformList = Type.Object({ data: Type.Array(Platform), totalRows: Type.Integer() });

export const PlatformIdParams = Type.Object({ platformId: Uuid });
export const KeyIdParams = Type.Object({ keyId: Uuid });
export const IssuePlatformKeyBody = Type.Object(
  {
    expiresAt: Type.Optional(
      Nullable(Type.String({ format: 'date-time', description: 'When the key stops working; null or absent: never' })),
    ),
  },
  { additionalProperties: false },
);

export const IssuedPlatformKey = Type.Object({
  keyId: Type.String(),
  key: Type.String({ description: 'The plaintext key; shown only in this response' }),
  platformId: Type.String(),
  expiresAt: Timestamp,
});

export const RevokedKey = Type.Object({ keyId: Type.String(), revokedAt: Type.String() });

export const CompanyDetail = Type.Object({
  ...Company.properties,
  keys: Type.Array(
    Type.Object({
      keyId: Type.String(),
      name: Type.String(),
      lastFour: Type.String(),
      environment: Type.String(),
      revokedAt: Timestamp,
      createdAt: Type.String(),
      lastUsedAt: Timestamp,
    }),
  ),
});

export const IssueBrandKeyBody = Type.Object(
  { name: Type.Optional(OneLineText({ minLength: 1, maxLength: 100, description: 'Label shown to the brand; default "API key"' })) },
  { additionalProperties: false },
);

export const IssuedBrandKey = Type.Object({
  keyId: Type.String(),
  key: Type.String({ description: 'The plaintext key; shown only in this response' }),
  companyId: Type.String(),
  name: Type.String(),
});

export const PlatformBrandsQuery = Type.Object(
  { domain: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: 'Filter by normalized domain' })) },
  { additionalProperties: false },
);

export const PlatformBrandList = Type.Object({
  data: Type.Array(
    Type.Object({
      domain: Type.String(),
      businessName: Nullable(Type.String()),
      status: Type.String(),
      endDate: Nullable(Type.String()),
    }),
  ),
  totalRows: Type.Integer(),
});

export const PlatformCompanyList = Type.Object({
  data: Type.Array(Type.Object({ companyId: Type.String(), firstSeenAt: Type.String(), lastSeenAt: Type.String() })),
  totalRows: Type.Integer(),
});
