import crypto from 'node:crypto';
import type { App } from '../../src/app.js';
import { createBrandUser } from '../../src/accounts/users.js';
import { registerOAuthClient } from '../../src/oauth/clients.js';
import type { TestContext } from './harness.js';
import { createBrand, createPlatform, uniqueId } from './factories.js';

export const PASSWORD = 'correct horse battery staple';
export const REDIRECT_URI = 'https://app.example/oauth/callback';

const FORM = { 'content-type': 'application/x-www-form-urlencoded' };

export function form(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export function pkce(): { verifier: string; challenge: string } {
  const verifier = crypto.randomBytes(48).toString('base64url');
  return { verifier, challenge: crypto.createHash('sha256').update(verifier).digest('base64url') };
}

/** A brand with a staff member, a public and a confidential client, an active and an inactive platform. */
export async function oauthWorld(context: TestContext) {
  const brand = await createBrand(context.support);
  const email = `${uniqueId('staff')}@brand.example`;
  await createBrandUser({ db: context.db }, brand.companyId, { email, password: PASSWORD });
  const ctx = { db: context.db, serviceEnv: context.config.serviceEnv };
  const publicClient = await registerOAuthClient(ctx, { name: 'Checkout App', redirectUris: [REDIRECT_URI], confidential: false });
  const confidentialClient = await registerOAuthClient(ctx, {
    name: 'Brand Backend',
    redirectUris: [REDIRECT_URI],
    confidential: true,
    companyId: brand.companyId,
  });
  const platform = await createPlatform(context.support);
  const inactivePlatform = await createPlatform(context.support, { active: false });
  return { brand, email, publicClient, confidentialClient, platform, inactivePlatform };
}

/** Cookies as a Cookie header, from a response's Set-Cookie headers merged over earlier ones. */
export function mergeCookies(previous: string, response: { cookies: Array<{ name: string; value: string }> }): string {
  const jar = new Map(
    previous
      .split('; ')
      .filter(Boolean)
      .map((pair) => pair.split('=') as [string, string]),
  );
  for (const cookie of response.cookies) {
    if (cookie.value === '') jar.delete(cookie.name);
    else jar.set(cookie.name, cookie.value);
  }
  return [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
}

export function csrfOf(cookies: string): string {
  return /svc_csrf=([A-Za-z0-9]+)/.exec(cookies)![1]!;
}

/** Signs in through the form; returns the browser's cookies (session and CSRF). */
export async function signIn(app: App, email: string, password = PASSWORD): Promise<string> {
  const page = await app.inject({ method: 'GET', url: '/account/sign-in' });
  let cookies = mergeCookies('', page);
  const response = await app.inject({
    method: 'POST',
    url: '/account/sign-in',
    headers: { ...FORM, cookie: cookies },
    payload: form({ csrf_token: csrfOf(cookies), email, password, return_to: '/account' }),
  });
  if (response.statusCode !== 303) throw new Error(`sign-in failed with ${response.statusCode}`);
  cookies = mergeCookies(cookies, response);
  return cookies;
}

export interface AuthorizeOptions {
  clientId: string;
  challenge: string;
  redirectUri?: string;
  platformId?: string;
  state?: string;
  decision?: 'approve' | 'deny';
}

export function authorizeFields(options: AuthorizeOptions): Record<string, string> {
  return {
    response_type: 'code',
    client_id: options.clientId,
    redirect_uri: options.redirectUri ?? REDIRECT_URI,
    scope: 'brand',
    state: options.state ?? 'state-123',
    code_challenge: options.challenge,
    code_challenge_method: 'S256',
    ...(options.platformId ? { platform_id: options.platformId } : {}),
  };
}

/** Submits the consent form; returns the redirect back to the app. */
export async function consent(app: App, cookies: string, options: AuthorizeOptions): Promise<URL> {
  const response = await app.inject({
    method: 'POST',
    url: '/v1/oauth/authorize',
    headers: { ...FORM, cookie: cookies },
    payload: form({ ...authorizeFields(options), csrf_token: csrfOf(cookies), decision: options.decision ?? 'approve' }),
  });
  if (response.statusCode !== 303) throw new Error(`consent failed with ${response.statusCode}: ${response.body}`);
  return new URL(response.headers.location as string);
}

export function tokenRequest(app: App, fields: Record<string, string>, headers: Record<string, string> = {}) {
  return app.inject({ method: 'POST', url: '/v1/oauth/token', headers: { ...FORM, ...headers }, payload: form(fields) });
}

/** Signs in, consents and exchanges the code: a fresh token pair for the public client. */
export async function issueTokens(app: App, world: Awaited<ReturnType<typeof oauthWorld>>, platformId?: string) {
  const cookies = await signIn(app, world.email);
  const { verifier, challenge } = pkce();
  const redirect = await consent(app, cookies, { clientId: world.publicClient.clientId, challenge, platformId });
  const response = await tokenRequest(app, {
    grant_type: 'authorization_code',
    code: redirect.searchParams.get('code')!,
    code_verifier: verifier,
    redirect_uri: REDIRECT_URI,
    client_id: world.publicClient.clientId,
  });
  if (response.statusCode !== 200) throw new Error(`token exchange failed: ${response.body}`);
  return response.json() as { access_token: string; refresh_token: string; expires_in: number; scope: string; token_type: string };
}
