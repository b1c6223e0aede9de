import { Type, type Static } from 'typebox';
import { StringEnum } from '../http/schemas.js';
import { pagingQuery } from '../http/paging.js';

export const CAMPAIGN_STATUSES = ['draft', 'active', 'closed'] as const;

export const CampaignsQuery = Type.Object({
  status: Type.Optional(StringEnum(CAMPAIGN_STATUSES, { description: 'Campaigns with this status now; omitted returns every status' })),
  ...pagingQuery,
});
export type CampaignsQuery = Static<typeof CampaignsQuery>;

const dateTimeOrNull = (description: string) => Type.Union([Type.String({ format: 'date-time' }), Type.Null()], { description });

export const Campaign = Type.Object(
  {
    id: Type.String({ description: 'Campaign id' }),
    name: Type.Optional(Type.String({ description: 'Campaign name; omitted when it has none' })),
    status: StringEnum(CAMPAIGN_STATUSES, {
      description: 'Status now: a scheduled campaign is active from its startDate, any campaign is closed after its endDate',
    }),
    startDate: dateTimeOrNull('ISO 8601 date-time; null when unset'),
    endDate: dateTimeOrNull('ISO 8601 date-time; null when unset'),
  },
  {
    title: 'Campaign',
    examples: [
      {
        id: 'cmp-summer-trail-bundle',
        name: 'Summer Trail Bundle',
        status: 'active',
        startDate: '2025-06-01T00:00:00.000Z',
        endDate: null,
      },
    ],
  },
);
export type Campaign = Static<typeof Campaign>;

export const CampaignsResponse = Type.Object(
  {
    data: Type.Array(Campaign),
    totalRows: Type.Integer({ description: 'Campaigns matching the filter across all pages' }),
  },
  {
    title: 'CampaignsResponse',
    examples: [
      {
        data: [
          {
            id: 'cmp-summer-trail-bundle',
            name: 'Summer Trail Bundle',
            status: 'active',
            startDate: '2025-06-01T00:00:00.000Z',
            endDate: null,
          },
          {
            id: 'cmp-morning-ritual',
            name: 'Morning Ritual Cross-Promo',
            status: 'closed',
            startDate: '2025-09-15T00:00:00.000Z',
            endDate: '2025-10-31T23:59:59.000Z',
          },
        ],
        totalRows: 2,
      },
    ],
  },
);
