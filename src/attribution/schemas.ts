import { Type } from 'typebox';

export const PlatformStatsParams = Type.Object({
  platformId: Type.String({ format: 'uuid', description: 'Platform.Id' }),
});

export const PlatformStats = Type.Object(
  {
    views: Type.Integer({ description: 'Offers shown by the platform (one per offer returned)' }),
    clicks: Type.Integer({ description: 'Referral links followed from the platform' }),
    orders: Type.Integer({ description: 'Orders credited to the platform' }),
  },
  { title: 'PlatformStats' },
);

export const ReferralParams = Type.Object({
  token: Type.String({ description: 'Opaque referral token, exactly as returned in referralUrl' }),
});
