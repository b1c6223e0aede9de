import { Type, type Static, type TSchema } from 'typebox';
import { OneLineText } from '../http/schemas.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const HttpUrl = Type.String({ minLength: 1, maxLength: 2048, description: 'Absolute http or https URL' });

/** Company ids appear in URLs and keys' owners; plain characters only. */
export const COMPANY_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,99}$';

export const CompanyIdParams = Type.Object({ companyId: Type.String({ pattern: COMPANY_ID_PATTERN }) });

/** Profile fields of a verified brand company, named as in the fixture `brands` items. */
const companyFields = {
  domain: Type.String({ minLength: 1, maxLength: 2048, description: 'Website; stored normalized (SPEC 4.2)' }),
  businessName: OneLineText({ minLength: 1, maxLength: 100 }),
  logoImageUrl: Nullable(HttpUrl),
  description: Nullable(Type.String({ maxLength: 1000 })),
  businessSize: Nullable(OneLineText({ maxLength: 50, description: 'A size label such as Medium' })),
  country: Nullable(OneLineText({ maxLength: 100, description: 'Primary country name' })),
  categories: Type.Array(OneLineText({ minLength: 1, maxLength: 100 }), { maxItems: 20 }),
  productCount: Nullable(Type.Integer({ minimum: 0 })),
  platform: Nullable(OneLineText({ maxLength: 100, description: 'Commerce platform name' })),
};

export const CompanyProfileFields = companyFields;

export const CreateCompanyBody = Type.Object(
  {
    companyId: Type.String({ pattern: COMPANY_ID_PATTERN }),
    domain: companyFields.domain,
    businessName: companyFields.businessName,
    logoImageUrl: Type.Optional(companyFields.logoImageUrl),
    description: Type.Optional(companyFields.description),
    businessSize: Type.Optional(companyFields.businessSize),
    country: Type.Optional(companyFields.country),
    categories: Type.Optional(companyFields.categories),
    productCount: Type.Optional(companyFields.productCount),
    platform: Type.Optional(companyFields.platform),
  },
  { additionalProperties: false },
);
export type CreateCompanyBody = Static<typeof CreateCompanyBody>;

export const UpdateCompanyBody = Type.Object(
  {
    domain: Type.Optional(companyFields.domain),
    businessName: Type.Optional(companyFields.businessName),
    logoImageUrl: Type.Optional(companyFields.logoImageUrl),
    description: Type.Optional(companyFields.description),
    businessSize: Type.Optional(companyFields.businessSize),
    country: Type.Optional(companyFields.country),
    categories: Type.Optional(companyFields.categories),
    productCount: Type.Optional(companyFields.productCount),
    platform: Type.Optional(companyFields.platform),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type UpdateCompanyBody = Static<typeof UpdateCompanyBody>;

export const Company = Type.Object({
  companyId: Type.String(),
  domain: Nullable(Type.String()),
  businessName: Nullable(Type.String()),
  logoImageUrl: Nullable(Type.String()),
  description: Nullable(Type.String()),
  businessSize: Nullable(Type.String()),
  country: Nullable(Type.String()),
  categories: Type.Array(Type.String()),
  productCount: Nullable(Type.Integer()),
  platform: Nullable(Type.String()),
  createdAt: Type.String(),
  updatedAt: Type.String(),
});
