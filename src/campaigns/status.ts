import { sql, type RawBuilder } from 'kysely';
import type { StoredCampaignStatus } from '../db/schema.js';

export type CampaignStatus = 'draft' | 'active' | 'closed';

/**
 * The status a campaign has now (DESIGN 4): closed is final and also reached when the end date
 * passes, whatever the stored status (a draft past its end date can never run, so it is over);
 * a scheduled campaign is a draft until its start date and active from then on.
 */
export function effectiveCampaignStatus(
  campaign: { status: StoredCampaignStatus; start_date: Date | null; end_date: Date | null },
  now: Date,
): CampaignStatus {
  if (campaign.status === 'closed') return 'closed';
  if (campaign.end_date && campaign.end_date.getTime() <= now.getTime()) return 'closed';
  if (campaign.status === 'scheduled') {
    return campaign.start_date && campaign.start_date.getTime() <= now.getTime() ? 'active' : 'draft';
  }
  return campaign.status;
}

/** The same rule in SQL, for filtering and paging in the database; `alias` is the campaigns table alias. */
export function effectiveCampaignStatusSql(alias: string, now: Date): RawBuilder<CampaignStatus> {
  const column = (name: string) => sql.ref(`${alias}.${name}`);
  return sql<CampaignStatus>`(case
    when ${column('status')} = 'closed' then 'closed'
    when ${column('end_date')} <= ${now}::timestamptz then 'closed'
    when ${column('status')} = 'scheduled' then
      case when ${column('start_date')} <= ${now}::timestamptz then 'active' else 'draft' end
    else ${column('status')}
  end)`;
}
