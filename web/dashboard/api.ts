/** The dashboard's JSON API: same-origin fetches with the session cookie and the CSRF header. */

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let csrfToken = '';

export function setCsrfToken(token: string): void {
  csrfToken = token;
}

async function parse<T>(response: Response): Promise<T> {
  const body = (await response.json().catch(() => ({}))) as { error?: string; message?: string };
  if (!response.ok) throw new ApiFailure(response.status, body.error ?? 'error', body.message ?? `request failed (${response.status})`);
  return body as T;
}

export async function get<T>(path: string): Promise<T> {
  return parse<T>(await fetch(`/dashboard/api/${path}`, { credentials: 'same-origin' }));
}

export async function post<T>(path: string, body: unknown = {}): Promise<T> {
  return parse<T>(
    await fetch(`/dashboard/api/${path}`, {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json', 'x-csrf-token': csrfToken },
      body: JSON.stringify(body),
    }),
  );
}

// The API's types come from the server's response schemas (types only: nothing of the server is bundled).
export type {
  AppRegistered,
  AuthorizedApp,
  BrandKey,
  BrandSearchResult as Brand,
  Claim,
  ClaimCheck,
  ClaimStarted,
  Collab as Campaign,
  Invitation,
  IssuedKey,
  Offer,
  OwnOffer,
  Partner,
  PartnerPage,
  RecommendationWithId as Recommendation,
  Recommendations,
  ReferralLink,
  RegisteredApp,
  Session,
  SidePerformance,
  SideTotals,
  SetupProposal,
  CurrencyFigures,
  AttributionSettings,
  BillingApproval,
} from '../../src/dashboard/schemas.ts';
export type { Statement } from '../../src/orders/schemas.ts';
