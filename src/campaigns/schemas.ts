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
  { title: 'Campaign' },
);
export type Campaign = Static<typeof Campaign>;

export const CampaignsResponse = Type.Object(
  {
    data: Type.Array(Campaign),
    totalRows: Type.Integer({ description: 'Campaigns matching the filter across all pages' }),
  },
  { title: 'CampaignsResponse' },
);
