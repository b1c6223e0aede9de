import { describe, expect, it } from 'vitest';
import { effectiveCampaignStatus } from './status.js';

const now = new Date('2026-06-01T12:00:00Z');
const before = new Date('2026-05-01T00:00:00Z');
const after = new Date('2026-07-01T00:00:00Z');

describe('effectiveCampaignStatus', () => {
  const cases: Array<[string, Parameters<typeof effectiveCampaignStatus>[0], string]> = [
    ['a draft', { status: 'draft', start_date: null, end_date: null }, 'draft'],
    ['a draft past its end date', { status: 'draft', start_date: null, end_date: before }, 'closed'],
    // Only a scheduled campaign starts by itself; a draft's start date is a plan, not a schedule.
    ['a draft whose start date has passed', { status: 'draft', start_date: before, end_date: null }, 'draft'],
    ['a scheduled campaign before its start', { status: 'scheduled', start_date: after, end_date: null }, 'draft'],
    ['a scheduled campaign with no start date', { status: 'scheduled', start_date: null, end_date: null }, 'draft'],
    ['a scheduled campaign from its start', { status: 'scheduled', start_date: now, end_date: after }, 'active'],
    ['a scheduled campaign past its end', { status: 'scheduled', start_date: before, end_date: now }, 'closed'],
    ['an active campaign', { status: 'active', start_date: before, end_date: after }, 'active'],
    ['an active campaign past its end', { status: 'active', start_date: null, end_date: before }, 'closed'],
    ['a closed campaign whose end is ahead', { status: 'closed', start_date: before, end_date: after }, 'closed'],
  ];
  for (const [name, campaign, expected] of cases) {
    it(name, () => expect(effectiveCampaignStatus(campaign, now)).toBe(expected));
  }
});
