import { Type } from 'typebox';
import { pagingQuery } from '../http/paging.js';
import { COMPANY_ID_PATTERN } from '../admin/schemas.js';

const Email = Type.String({ minLength: 3, maxLength: 254 });
const Password = Type.String({ minLength: 1, maxLength: 256 });
/** Ids in paths: company ids are text, so only their length and characters are checked here. */
export const CompanyIdParams = Type.Object({ companyId: Type.String({ minLength: 1, maxLength: 200 }) });
export const UuidParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

/** The store a sign-up claims; the account acts for it once the store's owner confirms. */
const Brand = Type.Object(
  {
    businessName: Type.String({ minLength: 1, maxLength: 100 }),
    domain: Type.String({ minLength: 1, maxLength: 100 }),
    categories: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 10 })),
  },
  { additionalProperties: false },
);
const InvitationCode = Type.String({ minLength: 1, maxLength: 100 });

export const SignUpBody = Type.Object(
  { email: Email, password: Password, brand: Type.Optional(Brand), invitationCode: Type.Optional(InvitationCode) },
  { additionalProperties: false },
);
export const ClaimBody = Type.Object({ brand: Brand }, { additionalProperties: false });
export const JoinBody = Type.Object({ invitationCode: InvitationCode }, { additionalProperties: false });

export const SignInBody = Type.Object({ email: Email, password: Password }, { additionalProperties: false });
export const ResetRequestBody = Type.Object({ email: Email }, { additionalProperties: false });
export const ResetConfirmBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 100 }), password: Password }, { additionalProperties: false });

export const SearchQuery = Type.Object({ q: Type.String({ minLength: 1, maxLength: 100 }) });
export const PartnerListQuery = Type.Object({
  status: Type.Optional(Type.Union(['active', 'inviteSent', 'inviteReceived', 'declined', 'removed'].map((s) => Type.Literal(s)))),
  ...pagingQuery,
});
export const RequestBody = Type.Object({ message: Type.Optional(Type.String({ maxLength: 1000 })) }, { additionalProperties: false });
export const PartnershipActionParams = Type.Object({
  companyId: Type.String({ minLength: 1, maxLength: 200 }),
  action: Type.Union([Type.Literal('accept'), Type.Literal('decline'), Type.Literal('withdraw'), Type.Literal('remove')]),
});

export const OfferBody = Type.Object(
  {
    title: Type.String({ minLength: 1, maxLength: 80 }),
    subtitle: Type.Optional(Type.Union([Type.String({ maxLength: 120 }), Type.Null()])),
    imageUrl: Type.String({ minLength: 1, maxLength: 2000 }),
    discountPercent: Type.Optional(Type.Union([Type.Literal(10), Type.Literal(15), Type.Literal(20), Type.Literal(25), Type.Null()])),
  },
  { additionalProperties: false },
);

export const CreateCampaignBody = Type.Object(
  {
    partnerId: Type.String({ minLength: 1, maxLength: 200 }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    startDate: Type.Optional(Type.String({ format: 'date-time' })),
    endDate: Type.Optional(Type.String({ format: 'date-time' })),
    /** The creator's offer in this campaign; without it, the brand's own offer. */
    offer: Type.Optional(OfferBody),
  },
  { additionalProperties: false },
);
/** Campaigns made here have uuids; those support or fixtures loaded keep their own ids (`cmp-summer-bundle`). */
const CampaignId = Type.String({ pattern: COMPANY_ID_PATTERN });
export const CampaignParams = Type.Object({ id: CampaignId });
export const CampaignActionParams = Type.Object({
  id: CampaignId,
  action: Type.Union([Type.Literal('start'), Type.Literal('schedule'), Type.Literal('close')]),
});
export const CampaignActionBody = Type.Object({ startDate: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false });

export const KeyBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export const RangeQuery = Type.Object({
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
});
/** The performance page: a range, and which page of the per-partner table (50 partners by default). */
export const PerformanceQuery = Type.Object({ ...RangeQuery.properties, ...pagingQuery });
