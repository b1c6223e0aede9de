import type { EmbedState } from '../../src/plugin/embed-state';

export class ServiceError extends Error {}

async function call(path: string, init?: RequestInit): Promise<EmbedState> {
  let response: Response;
  try {
    response = await fetch(path, { ...init, credentials: 'omit', cache: 'no-store' });
  } catch {
    throw new ServiceError('network');
  }
  if (!response.ok) {
    const body = (await response.json().catch(() => null)) as { message?: string } | null;
    throw new ServiceError(body?.message ?? `status ${response.status}`);
  }
  return (await response.json()) as EmbedState;
}

/** A POST, so the browser sends Origin: the service answers its own pages only. */
export function fetchState(platformId: string, domain: string): Promise<EmbedState> {
  return post('/plugin/v2/state', { platformId, domain });
}

function post(path: string, body: unknown): Promise<EmbedState> {
  return call(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

export function turnOnCrossPromotion(platformId: string, domain: string, discountPercent: number | undefined): Promise<EmbedState> {
  return post('/plugin/v2/consent', { platformId, domain, discountPercent, acceptTerms: true });
}

export function turnBackOn(platformId: string, domain: string): Promise<EmbedState> {
  return post('/plugin/v2/turn-on', { platformId, domain });
}
