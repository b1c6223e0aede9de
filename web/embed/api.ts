import type { EmbedState, StoreBilling } from '../../src/embed/embed-view';

export class ServiceError extends Error {
  constructor(
    message: string,
    /** The HTTP status; 0 when the service could not be reached. */
    readonly status: number,
  ) {
    super(message);
  }
}

async function post<T>(path: string, body: unknown, token: string | null = null): Promise<T> {
  let response: Response;
  try {
    response = await fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { Authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
      credentials: 'omit',
      cache: 'no-store',
    });
  } catch {
    throw new ServiceError('network', 0);
  }
  if (!response.ok) {
    const failure = (await response.json().catch(() => null)) as { message?: string } | null;
    throw new ServiceError(failure?.message ?? `status ${response.status}`, response.status);
  }
  return (await response.json()) as T;
}

/**
 * A POST, so the browser sends Origin: the service answers its own pages only. The challenge
 * rides as the state of the commerce-platform links in the answer.
 */
export function fetchState(platformId: string, domain: string, challenge: string): Promise<EmbedState> {
  return post('/plugin/v2/state', { platformId, domain, challenge });
}

/** The store-bound token for this page's secret, or null while the store's owner has not confirmed it. */
export async function exchangeSecret(platformId: string, domain: string, secret: string): Promise<string | null> {
  try {
    return (await post<{ token: string }>('/plugin/v2/token', { platformId, domain, secret })).token;
  } catch (error) {
    if (error instanceof ServiceError && error.status === 401) return null;
    throw error;
  }
}

/** The store's billing (held commissions, an approval its commerce platform waits for): the store token's only. */
export function fetchBilling(platformId: string, domain: string, token: string): Promise<StoreBilling> {
  return post('/plugin/v2/billing', { platformId, domain }, token);
}

export function turnOnCrossPromotion(
  platformId: string,
  domain: string,
  discountPercent: number | undefined,
  token: string,
): Promise<EmbedState> {
  return post('/plugin/v2/consent', { platformId, domain, discountPercent, acceptTerms: true }, token);
}

export function turnBackOn(platformId: string, domain: string, token: string): Promise<EmbedState> {
  return post('/plugin/v2/turn-on', { platformId, domain }, token);
}
