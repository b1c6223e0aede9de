import crypto from 'node:crypto';
import type { Client } from 'openapi-fetch';
import type { paths } from './api.js';

/** What the calls need: the demo data's credentials, an OAuth client bound to a brand, the order webhook's secret. */
export interface ClientWorld {
  brandKey: string;
  platformKey: string;
  platformId: string;
  oauthClient: { clientId: string; clientSecret: string; redirectUri: string };
  webhookSecret: string;
}

/** What the calls saw, for the test to check beyond the types. */
export interface CallResults {
  partnerDomains: string[];
  campaignStatuses: string[];
  recommendationCount: number;
  offerTitles: string[];
  referralRedirect: string | null;
  syncCreated: number;
  tokenScope: string;
  partnersWithToken: number;
  orderDuplicate: boolean;
  refundTaken: number;
  /** The authorization request opened the sign-in page (HTML, for the brand's staff). */
  authorizePage: boolean;
}

const basic = ({ clientId, clientSecret }: ClientWorld['oauthClient']) =>
  `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`).toString('base64')}`;

const FORM = 'application/x-www-form-urlencoded';
const formBody = (body: Record<string, string | undefined>) =>
  new URLSearchParams(Object.entries(body).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString();

/**
 * One call of every operation in the OpenAPI document, typed by the generated `paths`: a path,
 * parameter, body or response field the document does not describe fails the type check.
 */
export async function callEveryOperation(client: Client<paths>, world: ClientWorld): Promise<CallResults> {
  const brand = { 'X-Api-Key': world.brandKey };

  const sync = await client.POST('/v1/platform/brands', {
    headers: { 'X-Api-Key': world.platformKey },
    body: {
      brands: [
        { domain: 'https://www.Typed-Client.example/shop', businessName: 'Typed Client' },
        { domain: 'gone.example', status: 'closed' },
      ],
    },
  });
  const partners = await client.GET('/v1/partners', { headers: brand, params: { query: { status: 'active', pageSize: 10 } } });
  const campaigns = await client.GET('/v1/campaigns', { headers: brand, params: { query: { pageIndex: 1 } } });
  const recommendations = await client.GET('/v1/discover/partner/recommendations', {
    headers: brand,
    params: { header: { 'x-platform-id': world.platformId } },
  });
  const offers = await client.GET('/v1/campaigns/offers', {
    headers: brand,
    params: { query: { type: 'post-purchase' }, header: { 'x-platform-id': world.platformId } },
  });

  const referralUrl = offers.data?.offers[0]?.referralUrl;
  const token = referralUrl ? new URL(referralUrl).pathname.split('/').pop() : undefined;
  // A shopper's browser follows the redirect to the partner's store; the client stops at it.
  const referral = await client.GET('/r/{token}', { params: { path: { token: token ?? 'missing' } }, redirect: 'manual' });

  const metadata = await client.GET('/.well-known/oauth-authorization-server');
  const authorize = await client.GET('/v1/oauth/authorize', {
    params: {
      query: {
        response_type: 'code',
        client_id: world.oauthClient.clientId,
        redirect_uri: world.oauthClient.redirectUri,
        code_challenge: crypto.createHash('sha256').update('a verifier the app keeps to itself').digest('base64url'),
        code_challenge_method: 'S256',
        state: 'openapi-fetch',
      },
    },
    parseAs: 'text',
  });
  const tokens = await client.POST('/v1/oauth/token', {
    headers: { Authorization: basic(world.oauthClient), 'Content-Type': FORM },
    body: { grant_type: 'client_credentials', scope: metadata.data?.scopes_supported[0] },
    bodySerializer: formBody,
  });
  const partnersWithToken = await client.GET('/v1/partners', { headers: { Authorization: `Bearer ${tokens.data?.access_token}` } });
  await client.POST('/v1/oauth/revoke', {
    headers: { Authorization: basic(world.oauthClient), 'Content-Type': FORM },
    body: { token: tokens.data?.access_token ?? 'missing', token_type_hint: 'access_token' },
    bodySerializer: formBody,
  });

  // The webhook's signature covers the exact bytes sent, so the client sends the text it signed.
  const order = JSON.stringify({
    orderId: `typed-${crypto.randomUUID()}`,
    // The store the shopper landed on: the partner's, where the referral link led.
    storeDomain: new URL(referral.response.headers.get('location') ?? 'https://unknown.example').hostname,
    customerId: 'typed-client-customer',
    totalCents: 4250,
    currency: 'USD',
    placedAt: new Date().toISOString(),
    ...(token ? { referralToken: token } : {}),
  });
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = crypto.createHmac('sha256', world.webhookSecret).update(`${timestamp}.${order}`).digest('hex');
  const received = await client.POST('/webhooks/commerce/orders', {
    headers: { 'X-Svc-Signature': `sha256=${signature}` },
    params: { header: { 'x-svc-timestamp': timestamp } },
    body: JSON.parse(order),
    bodySerializer: () => order,
  });

  // A partial refund of that order, signed the same way: the commission is reversed for its share.
  const refund = JSON.stringify({
    eventId: `typed-refund-${crypto.randomUUID()}`,
    type: 'refund',
    orderId: JSON.parse(order).orderId,
    storeDomain: JSON.parse(order).storeDomain,
    amountCents: 1000,
    currency: 'USD',
    occurredAt: new Date().toISOString(),
  });
  const refundSignature = crypto.createHmac('sha256', world.webhookSecret).update(`${timestamp}.${refund}`).digest('hex');
  const refunded = await client.POST('/webhooks/commerce/order-events', {
    headers: { 'X-Svc-Signature': `sha256=${refundSignature}` },
    params: { header: { 'x-svc-timestamp': timestamp } },
    body: JSON.parse(refund),
    bodySerializer: () => refund,
  });

  return {
    partnerDomains: (partners.data?.data ?? []).flatMap((partner) => (partner.domain ? [partner.domain] : [])),
    campaignStatuses: (campaigns.data?.data ?? []).map((campaign) => campaign.status),
    recommendationCount: recommendations.data?.totalRows ?? -1,
    offerTitles: (offers.data?.offers ?? []).map((offer) => offer.title),
    referralRedirect: referral.response.headers.get('location'),
    syncCreated: sync.data?.created ?? -1,
    tokenScope: tokens.data?.scope ?? '',
    partnersWithToken: partnersWithToken.data?.totalRows ?? -1,
    orderDuplicate: received.data?.duplicate ?? true,
    refundTaken: refunded.data?.takenCents ?? -1,
    authorizePage: typeof authorize.data === 'string' && authorize.data.includes('Sign in to let'),
  };
}
