import { Type, type Static, type TSchema } from 'typebox';
import { pagingQuery } from '../http/paging.js';
import { OneLineText, StringEnum } from '../http/schemas.js';
import { COMPANY_ID_PATTERN } from '../companies/schemas.js';
import { CAMPAIGN_STATUSES } from '../campaigns/schemas.js';
import { Partner as PartnerSchema } from '../partnerships/schemas.js';
import { PARTNER_STATUSES } from '../partnerships/status.js';
import { ExplainedRecommendation } from '../recommendations/schemas.js';

/**
 * The dashboard API's requests and responses. The response schemas also shape what is sent (a
 * field not listed here never leaves the server), and the browser app (web/dashboard/api.ts)
 * takes its types from here with `import type`, so the two cannot drift apart.
 */

const Email = Type.String({ minLength: 3, maxLength: 254 });
const Password = Type.String({ minLength: 1, maxLength: 256 });
/** Ids in paths: company ids are text, so only their length and characters are checked here. */
export const CompanyIdParams = Type.Object({ companyId: Type.String({ minLength: 1, maxLength: 200 }) });
export const UuidParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

/** The store a sign-up claims; the account acts for it once the store's owner confirms. */
const Brand = Type.Object(
  {
    businessName: OneLineText({ minLength: 1, maxLength: 100 }),
    domain: Type.String({ minLength: 1, maxLength: 100 }),
    categories: Type.Optional(Type.Array(OneLineText({ minLength: 1, maxLength: 50 }), { maxItems: 10 })),
  },
  { additionalProperties: false },
);
const InvitationCode = Type.String({ minLength: 1, maxLength: 100 });

/** No password: the person who opens the mailed link chooses it (FinishSignUpBody). */
export const SignUpBody = Type.Object(
  { email: Email, brand: Type.Optional(Brand), invitationCode: Type.Optional(InvitationCode) },
  { additionalProperties: false },
);
/** The token of the link a sign-up mailed to its address, and the password its opener chose. */
export const FinishSignUpBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 100 }), password: Password },
  { additionalProperties: false },
);
export const ClaimBody = Type.Object({ brand: Brand }, { additionalProperties: false });
export const JoinBody = Type.Object({ invitationCode: InvitationCode }, { additionalProperties: false });

export const SignInBody = Type.Object({ email: Email, password: Password }, { additionalProperties: false });
export const ResetRequestBody = Type.Object({ email: Email }, { additionalProperties: false });
export const ResetConfirmBody = Type.Object(
  { token: Type.String({ minLength: 1, maxLength: 100 }), password: Password },
  { additionalProperties: false },
);

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
    title: OneLineText({ minLength: 1, maxLength: 80 }),
    subtitle: Type.Optional(Type.Union([OneLineText({ maxLength: 120 }), Type.Null()])),
    imageUrl: Type.String({ minLength: 1, maxLength: 2000 }),
    discountPercent: Type.Optional(Type.Union([Type.Literal(10), Type.Literal(15), Type.Literal(20), Type.Literal(25), Type.Null()])),
  },
  { additionalProperties: false },
);

export const CreateCampaignBody = Type.Object(
  {
    partnerId: Type.String({ minLength: 1, maxLength: 200 }),
    name: OneLineText({ minLength: 1, maxLength: 100 }),
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
export const CampaignActionBody = Type.Object(
  { startDate: Type.Optional(Type.String({ format: 'date-time' })) },
  { additionalProperties: false },
);

export const KeyBody = Type.Object({ name: OneLineText({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export const RangeQuery = Type.Object({
  from: Type.String({ format: 'date' }),
  to: Type.String({ format: 'date' }),
});
/** The performance page: a range, and which page of the per-partner table (50 partners by default). */
export const PerformanceQuery = Type.Object({ ...RangeQuery.properties, ...pagingQuery });

// --- responses ---

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Done = <T extends TSchema>(name: string, value: T) => Type.Object({ [name]: value });

/** What an account without a brand sees of its claim of a store. */
export const Claim = Type.Object({
  domain: Type.String(),
  businessName: Type.String(),
  status: StringEnum(['pending', 'declined', 'refused'] as const),
  /** Where the store's owner confirms, at the commerce platform; null when the platform did not answer yet. */
  confirmUrl: Nullable(Type.String()),
  message: Type.String(),
});
export type Claim = Static<typeof Claim>;

export const Session = Type.Object({
  csrfToken: Type.String(),
  keyPrefix: Type.String(),
  sandbox: Type.Boolean(),
  devMailbox: Type.Boolean(),
  /** The demo staff sign-in, shown on the sign-in page of a test or dev host while it signs in. */
  demoSignIn: Nullable(Type.Object({ email: Type.String(), password: Type.String(), brandName: Type.String() })),
  /** companyId is null while the account's claim of a store waits for the store's owner. */
  user: Nullable(
    Type.Object({
      email: Type.String(),
      companyId: Nullable(Type.String()),
      brandName: Nullable(Type.String()),
      domain: Nullable(Type.String()),
    }),
  ),
  claim: Nullable(Claim),
});
export type Session = Static<typeof Session>;

/** The same for every sign-up that passed its checks, whether the address has an account or not. */
export const SignUpSent = Type.Object({ sent: Type.Literal(true), message: Type.String() });
export type SignUpSent = Static<typeof SignUpSent>;
export const SignedUp = Type.Object({ companyId: Nullable(Type.String()), claim: Nullable(Claim) });
export type SignedUp = Static<typeof SignedUp>;
export const ClaimCheck = SignedUp;
export type ClaimCheck = Static<typeof ClaimCheck>;
export const ClaimStarted = Type.Object({ claim: Nullable(Claim) });
export type ClaimStarted = Static<typeof ClaimStarted>;
export const Joined = Type.Object({ companyId: Type.String() });
export const SignedIn = Done('signedIn', Type.Boolean());
export const ResetRequested = Done('requested', Type.Boolean());
export const ResetDone = Done('reset', Type.Boolean());

export const Invitation = Type.Object({ code: Type.String(), expiresAt: Type.String() });
export type Invitation = Static<typeof Invitation>;

const PartnerStatus = StringEnum(PARTNER_STATUSES);

/** A brand found by the search, with where the caller stands with it (null: no partnership ever). */
export const BrandSearchResult = Type.Object({
  companyId: Type.String(),
  businessName: Nullable(Type.String()),
  domain: Nullable(Type.String()),
  logoImageUrl: Nullable(Type.String()),
  categories: Type.Array(Type.String()),
  status: Nullable(PartnerStatus),
});
export type BrandSearchResult = Static<typeof BrandSearchResult>;
export const BrandSearchResults = Type.Object({ data: Type.Array(BrandSearchResult) });

/**
 * A recommendation of GET /v1/discover/partner/recommendations with the company id a request needs
 * and, when scored, the terms of its match rate.
 */
export const RecommendationWithId = Type.Object({ ...ExplainedRecommendation.properties, companyId: Nullable(Type.String()) });
export type RecommendationWithId = Static<typeof RecommendationWithId>;
/** `scoring`: the brand is not scored yet, so the list is unranked and the app asks again. */
export const Recommendations = Type.Object({ scoring: Type.Boolean(), data: Type.Array(RecommendationWithId) });
export type Recommendations = Static<typeof Recommendations>;

/** A partnership as GET /v1/partners lists it. */
export type Partner = Static<typeof PartnerSchema>;
/**
 * One page of a partnership list; for open requests, the message written with each (by company
 * id, when there is one); for declined and removed rows, where each pair stands now.
 */
export const PartnerPage = Type.Object({
  data: Type.Array(PartnerSchema),
  totalRows: Type.Integer(),
  messages: Type.Optional(Type.Record(Type.String(), Type.String())),
  current: Type.Optional(Type.Record(Type.String(), PartnerStatus)),
});
export type PartnerPage = Static<typeof PartnerPage>;
export const RequestSent = Done('status', Type.Literal('inviteSent'));
export const PartnershipChanged = Done('done', PartnershipActionParams.properties.action);

/** A brand's offer, or the one it shows in one campaign (`custom`). */
export const Offer = Type.Object({
  title: Type.String(),
  subtitle: Nullable(Type.String()),
  imageUrl: Type.String(),
  discountPercent: Nullable(Type.Integer()),
  live: Type.Boolean(),
  /** True when the brand set this offer for one campaign only. */
  custom: Type.Boolean(),
});
export type Offer = Static<typeof Offer>;
/** What store setup built from the store's best sellers, shown while the brand's offer says something else. */
export const SetupProposal = Type.Object({ subtitle: Type.String(), imageUrl: Type.String() });
export const OwnOffer = Type.Object({ offer: Nullable(Offer), setupProposal: Nullable(SetupProposal) });
export type OwnOffer = Static<typeof OwnOffer>;
export type SetupProposal = Static<typeof SetupProposal>;

/** A referral link a partner's page uses for the brand's offer, and where it leads. */
export const ReferralLink = Type.Object({
  url: Type.String(),
  leadsTo: Nullable(Type.String()),
  platform: Nullable(Type.String()),
  campaign: Nullable(Type.String()),
  shownBy: Nullable(Type.String()),
  createdAt: Type.String(),
});
export type ReferralLink = Static<typeof ReferralLink>;
export const ReferralLinks = Type.Object({ data: Type.Array(ReferralLink) });

/** A collab: a campaign of the brand's, as owner or partner, with the offer each side shows in it. */
export const Collab = Type.Object({
  id: Type.String(),
  name: Nullable(Type.String()),
  status: StringEnum(CAMPAIGN_STATUSES),
  /** A draft with a start date: it goes live on its own then. */
  scheduled: Type.Boolean(),
  startDate: Nullable(Type.String()),
  endDate: Nullable(Type.String()),
  mine: Type.Boolean(),
  /** Why this brand cannot start the draft: the partner created it, or the partnership ended; null when it can (or not a draft). */
  startBlocked: Nullable(StringEnum(['partner_starts', 'partnership_ended'] as const)),
  partner: Type.Object({ companyId: Type.String(), businessName: Nullable(Type.String()) }),
  offers: Type.Object({ mine: Nullable(Offer), partner: Nullable(Offer) }),
});
export type Collab = Static<typeof Collab>;
export const Collabs = Type.Object({ data: Type.Array(Collab) });
export const CollabCreated = Type.Object({ id: Type.String() });
export const CollabOfferSaved = Done('saved', Type.Boolean());
export const CollabChanged = Done('done', CampaignActionParams.properties.action);

export const BrandKey = Type.Object({
  keyId: Type.String(),
  name: Type.String(),
  lastFour: Type.String(),
  environment: StringEnum(['test', 'live'] as const),
  revokedAt: Nullable(Type.String()),
  createdAt: Type.String(),
  lastUsedAt: Nullable(Type.String()),
  /** Who issued the key: a staff account in the dashboard, support (admin API, CLI), a fixture file; null before it was recorded. */
  issuedBy: Nullable(StringEnum(['staff', 'support', 'fixture'] as const)),
  /** The staff account that issued it, while it belongs to the brand. */
  createdBy: Nullable(Type.Object({ email: Type.String(), displayName: Nullable(Type.String()) })),
});
export type BrandKey = Static<typeof BrandKey>;
export const BrandKeys = Type.Object({ data: Type.Array(BrandKey) });
/** The new key's plaintext, shown once. */
export const IssuedKey = Type.Object({ keyId: Type.String(), name: Type.String(), key: Type.String() });
export type IssuedKey = Static<typeof IssuedKey>;
export const RevokedKey = Type.Object({ keyId: Type.String(), revokedAt: Type.String() });

export const AuthorizedApp = Type.Object({
  grantId: Type.String(),
  clientId: Type.String(),
  name: Type.String(),
  platform: Nullable(Type.String()),
  scope: Type.Array(Type.String()),
  authorizedAt: Type.String(),
});
export type AuthorizedApp = Static<typeof AuthorizedApp>;
export const AuthorizedApps = Type.Object({ data: Type.Array(AuthorizedApp) });
export const AppRevoked = Done('revoked', Type.Boolean());

/** An OAuth app the brand registers itself: one redirect URI a line in the form, sent as a list. */
export const RegisterAppBody = Type.Object(
  {
    name: OneLineText({ minLength: 1, maxLength: 100 }),
    redirectUris: Type.Array(Type.String({ minLength: 1, maxLength: 2000 }), { minItems: 1, maxItems: 20 }),
    confidential: Type.Boolean(),
  },
  { additionalProperties: false },
);
export const ClientIdParams = Type.Object({ clientId: Type.String({ minLength: 3, maxLength: 100, pattern: '^[A-Za-z0-9._-]+$' }) });
export const RegisteredApp = Type.Object({
  clientId: Type.String(),
  name: Type.String(),
  confidential: Type.Boolean(),
  redirectUris: Type.Array(Type.String()),
  createdAt: Type.String(),
});
export type RegisteredApp = Static<typeof RegisteredApp>;
export const RegisteredApps = Type.Object({ data: Type.Array(RegisteredApp) });
/** A new app: its client id, and its secret once (confidential apps only). */
export const AppRegistered = Type.Object({
  clientId: Type.String(),
  name: Type.String(),
  confidential: Type.Boolean(),
  redirectUris: Type.Array(Type.String()),
  clientSecret: Type.Optional(Type.String()),
});
export type AppRegistered = Static<typeof AppRegistered>;
export const AppDeleted = Done('deleted', Type.Boolean());

/** Orders and their money in one currency; currencies are never added together. */
export const CurrencyFigures = Type.Object({
  currency: Type.String({ description: 'ISO 4217 code' }),
  orders: Type.Integer(),
  newCustomers: Type.Integer(),
  revenueMinor: Type.Integer({ description: 'Order totals less what cancels and refunds took, in minor units' }),
  commissionMinor: Type.Integer({ description: 'The ledger entries of the orders, reversals included, in minor units' }),
});
export type CurrencyFigures = Static<typeof CurrencyFigures>;

/** Counts of every currency, and money per currency (`money`): amounts of different currencies are never added together. */
export const Figures = Type.Object({
  views: Type.Integer(),
  clicks: Type.Integer(),
  orders: Type.Integer({ description: 'Attributed orders, in every currency' }),
  newCustomers: Type.Integer(),
  money: Type.Array(CurrencyFigures),
});
export type Figures = Static<typeof Figures>;
const withFigures = <T extends Record<string, TSchema>>(fields: T) => Type.Object({ ...fields, ...Figures.properties });

/** A platform's id; null for orders credited to a brand pair with no platform (matched by the partner's code alone). */
const PlatformIdOrUnknown = Nullable(
  Type.String({ description: 'The platform; null for orders matched by the partner\'s discount code alone ("unknown platform")' }),
);

/** The performance page: totals, every day of the range, each platform, and one page of the partners by name. */
export const Performance = Type.Object({
  from: Type.String(),
  to: Type.String(),
  totals: Figures,
  byDay: Type.Array(withFigures({ date: Type.String() })),
  byPlatform: Type.Array(withFigures({ platformId: PlatformIdOrUnknown, name: Nullable(Type.String()) })),
  byPartner: Type.Object({
    pageIndex: Type.Integer(),
    pageSize: Type.Integer(),
    totalRows: Type.Integer(),
    data: Type.Array(withFigures({ companyId: Type.String(), name: Nullable(Type.String()) })),
  }),
});
export type Performance = Static<typeof Performance>;

const SideFigures = {
  views: Type.Integer(),
  clicks: Type.Integer(),
  orders: Type.Integer({ description: 'Attributed orders, in every currency' }),
  newCustomers: Type.Integer(),
  money: Type.Array(CurrencyFigures),
};
export const SideTotals = Type.Object(SideFigures);
export type SideTotals = Static<typeof SideTotals>;

/**
 * One of the brand's two roles over a range: `shown`, the partners' offers it showed on its own
 * pages and platforms; `received`, its own offer shown by partners. Totals, every day, each
 * platform and one page of the partners by name.
 */
export const SidePerformance = Type.Object({
  side: StringEnum(['shown', 'received'] as const),
  from: Type.String(),
  to: Type.String(),
  totals: SideTotals,
  byDay: Type.Array(Type.Object({ date: Type.String(), views: Type.Integer(), clicks: Type.Integer(), orders: Type.Integer() })),
  byPlatform: Type.Array(Type.Object({ platformId: PlatformIdOrUnknown, name: Nullable(Type.String()), ...SideFigures })),
  byPartner: Type.Object({
    pageIndex: Type.Integer(),
    pageSize: Type.Integer(),
    totalRows: Type.Integer(),
    data: Type.Array(Type.Object({ companyId: Type.String(), name: Nullable(Type.String()), ...SideFigures })),
  }),
});
export type SidePerformance = Static<typeof SidePerformance>;

export const AttributionSettings = Type.Object(
  {
    viewThrough: Type.Boolean({
      description: 'Orders after a view of the offer of the brand count too (view-through); click-through always counts',
    }),
  },
  { additionalProperties: false },
);
export type AttributionSettings = Static<typeof AttributionSettings>;

/** What the brand's store must approve at its commerce platform for held commissions to be charged. */
export const BillingApproval = Type.Object({
  approval: Nullable(
    Type.Object({
      platformName: Type.String(),
      confirmationUrl: Type.String({ description: "The platform's page where the store's staff approve it" }),
      cappedMinor: Type.Integer({ description: 'The higher capped amount asked for, in minor units of currency' }),
      currency: Type.String({ pattern: '^[A-Z]{3}$' }),
      requestedAt: Type.String({ format: 'date-time' }),
    }),
  ),
});
export type BillingApproval = Static<typeof BillingApproval>;
