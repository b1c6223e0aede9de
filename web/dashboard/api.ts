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

export interface Claim {
  domain: string;
  businessName: string;
  status: 'pending' | 'declined' | 'refused';
  confirmUrl: string | null;
  message: string;
}

export interface Session {
  csrfToken: string;
  keyPrefix: string;
  sandbox: boolean;
  devMailbox: boolean;
  /** companyId is null while the account's claim of a store waits for the store's owner. */
  user: { email: string; companyId: string | null; brandName: string | null; domain: string | null } | null;
  claim: Claim | null;
}

export interface Page<T> {
  data: T[];
  totalRows: number;
  /** For declined and removed rows: where each pair stands now. */
  current?: Record<string, string>;
}

export interface Partner {
  companyId: string;
  businessName?: string;
  domain?: string;
  logoImageUrl?: string;
  status: string;
}

export interface Brand {
  companyId: string;
  businessName: string | null;
  domain: string | null;
  categories: string[];
  status: string | null;
}

export interface Recommendation {
  companyId: string | null;
  domain?: string;
  businessName?: string;
  matchRate?: number;
  categories: string[];
}

export interface Offer {
  title: string;
  subtitle: string | null;
  imageUrl: string;
  discountPercent: number | null;
  live: boolean;
  /** True when the brand set this offer for one campaign only. */
  custom: boolean;
}

export interface Campaign {
  id: string;
  name: string | null;
  status: 'draft' | 'active' | 'closed';
  scheduled: boolean;
  startDate: string | null;
  endDate: string | null;
  mine: boolean;
  partner: { companyId: string; businessName: string | null };
  offers: { mine: Offer | null; partner: Offer | null };
}

export interface Figures {
  views: number;
  clicks: number;
  orders: number;
  newCustomers: number;
  revenueCents: number;
  commissionCents: number;
}

export interface Performance {
  from: string;
  to: string;
  totals: Figures;
  byDay: Array<Figures & { date: string }>;
  byPlatform: Array<Figures & { platformId: string; name: string | null }>;
  /** One page of the brands with figures, by name. */
  byPartner: { pageIndex: number; pageSize: number; totalRows: number; data: Array<Figures & { companyId: string; name: string | null }> };
}
