import { Type, type Static } from 'typebox';
import { StringEnum } from '../http/schemas.js';
import { pagingQuery } from '../http/paging.js';
import { PARTNER_STATUSES } from './status.js';

export const PartnersQuery = Type.Object({
  status: Type.Optional(
    StringEnum(PARTNER_STATUSES, {
      default: 'active',
      description: 'Partnerships with this status, seen from the caller; declined also returns removed ones',
    }),
  ),
  ...pagingQuery,
});
export type PartnersQuery = Static<typeof PartnersQuery>;

export const Partner = Type.Object(
  {
    companyId: Type.String({ description: 'Partner company id' }),
    businessName: Type.Optional(Type.String({ description: 'Partner brand name; omitted when unknown' })),
    domain: Type.Optional(Type.String({ description: 'Partner website domain; omitted when unknown' })),
    logoImageUrl: Type.Optional(Type.String({ description: 'Omitted when the brand has no logo' })),
    status: StringEnum(PARTNER_STATUSES),
  },
  {
    title: 'Partner',
    examples: [
      {
        companyId: 'harbor-vine-coffee',
        businessName: 'Harbor & Vine Coffee Roasters',
        domain: 'harborandvine.example',
        logoImageUrl: 'https://harborandvine.example/logo.png',
        status: 'active',
      },
    ],
  },
);
export type Partner = Static<typeof Partner>;

export const PartnersResponse = Type.Object(
  {
    data: Type.Array(Partner),
    totalRows: Type.Integer({ description: 'Partnerships matching the status filter across all pages' }),
  },
  {
    title: 'PartnersResponse',
    examples: [
      {
        data: [
          {
            companyId: 'harbor-vine-coffee',
            businessName: 'Harbor & Vine Coffee Roasters',
            domain: 'harborandvine.example',
            logoImageUrl: 'https://harborandvine.example/logo.png',
            status: 'active',
          },
          { companyId: 'trailpeak-gear', businessName: 'TrailPeak Gear', domain: 'trailpeak.example', status: 'active' },
        ],
        totalRows: 2,
      },
    ],
  },
);
