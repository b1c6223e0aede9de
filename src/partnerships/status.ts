import type { PartnershipStatus } from '../db/schema.js';

export const PARTNER_STATUSES = ['active', 'inviteSent', 'inviteReceived', 'declined', 'removed'] as const;
export type PartnerStatus = (typeof PARTNER_STATUSES)[number];

/** A stored status seen from one side of the partnership. */
export interface StoredSelection {
  side: 'requester' | 'recipient';
  status: PartnershipStatus;
}

/**
 * The status a partnership has for the caller (DESIGN 4): an open request is inviteSent for the
 * brand that asked and inviteReceived for the other; every other status reads the same on both sides.
 */
export function partnerStatusFor(status: PartnershipStatus, callerIsRequester: boolean): PartnerStatus {
  if (status === 'pending') return callerIsRequester ? 'inviteSent' : 'inviteReceived';
  return status;
}

/**
 * The stored (side, status) pairs a filter matches. The declined filter also returns partnerships
 * removed later (SPEC 3.1); each pair maps to one index range, so a list is a merge of index walks.
 */
export function selectionsFor(filter: PartnerStatus): StoredSelection[] {
  const bothSides = (status: PartnershipStatus): StoredSelection[] => [
    { side: 'requester', status },
    { side: 'recipient', status },
  ];
  switch (filter) {
    case 'active':
      return bothSides('active');
    case 'inviteSent':
      return [{ side: 'requester', status: 'pending' }];
    case 'inviteReceived':
      return [{ side: 'recipient', status: 'pending' }];
    case 'declined':
      return [...bothSides('declined'), ...bothSides('removed')];
    case 'removed':
      return bothSides('removed');
  }
}
