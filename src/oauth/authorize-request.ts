import { isUuid } from '../config.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { Db } from '../db/database.js';
import { resolveScope } from './scopes.js';
import { toServiceClient, type ServiceClient } from './model.js';
import { redirectUriMatches } from './clients.js';
import * as dal from './dal.js';

/** An authorization request that passed every check. */
export interface AuthorizeRequest {
  client: ServiceClient;
  redirectUri: string;
  state: string | undefined;
  scope: string[];
  codeChallenge: string;
  platform: { id: string; name: string } | null;
  /** The brand that registered the app on its dashboard, shown on the consent page; null for the service's own registrations. */
  registeredBy: string | null;
}

/**
 * The outcome of checking an authorization request. Until the client and its redirect URI are
 * known good, errors are shown on a page: redirecting would hand the error (and the user) to a
 * site nobody registered. After that, errors go back to the app as RFC 6749 4.1.2.1 says.
 */
export type AuthorizeCheck =
  | { kind: 'ok'; request: AuthorizeRequest }
  | { kind: 'page'; message: string }
  | { kind: 'redirect'; redirectUri: string; state: string | undefined; error: string; description: string };

export interface AuthorizeLookups {
  findClient(clientId: string): Promise<ServiceClient | undefined>;
  findActivePlatform(platformId: string): Promise<{ id: string; name: string } | undefined>;
  registeringBrand(clientId: string): Promise<string | null>;
}

/** The lookups of the authorize endpoint: clients from the database, platforms through the authenticator's cache. */
export function authorizeLookups(db: Db, auth: Pick<Authenticator, 'findPlatform'>): AuthorizeLookups {
  return {
    findClient: async (clientId) => {
      const record = await dal.findClient(db, clientId);
      return record && toServiceClient(record);
    },
    findActivePlatform: async (platformId) => {
      const platform = await auth.findPlatform(platformId);
      if (!platform?.active) return undefined;
      return { id: platform.id, name: (await dal.platformName(db, platform.id)) ?? platform.id };
    },
    registeringBrand: (clientId) => dal.registeringBrand(db, clientId),
  };
}

const PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'platform_id',
] as const;
type Param = (typeof PARAMS)[number];

/** RFC 7636 4.2: base64url of a SHA-256 digest is 43 characters. */
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
/** RFC 6749 appendix A.5: printable ASCII. */
const VSCHAR = /^[\x20-\x7e]{1,500}$/;

export async function checkAuthorizeRequest(lookups: AuthorizeLookups, input: unknown): Promise<AuthorizeCheck> {
  const raw = (input && typeof input === 'object' ? input : {}) as Record<string, unknown>;
  const repeated = PARAMS.filter((name) => Array.isArray(raw[name]));
  const value = (name: Param): string | undefined => (typeof raw[name] === 'string' ? (raw[name] as string) : undefined);

  if (repeated.includes('client_id') || repeated.includes('redirect_uri')) {
    return { kind: 'page', message: 'The link sends client_id or redirect_uri more than once.' };
  }
  const clientId = value('client_id');
  if (!clientId) return { kind: 'page', message: 'The link does not say which app is asking (client_id is missing).' };
  const client = await lookups.findClient(clientId);
  if (!client) return { kind: 'page', message: 'The app that sent you here is not registered with us (unknown client_id).' };
  const redirectUri = value('redirect_uri');
  if (!redirectUri) return { kind: 'page', message: 'The link does not say where to return (redirect_uri is missing).' };
  if (!redirectUriMatches(client.redirectUris, redirectUri)) {
    return {
      kind: 'page',
      message: `The return address in the link is not one registered for ${client.name} (redirect_uri does not match).`,
    };
  }

  const rawState = value('state');
  const state = rawState !== undefined && VSCHAR.test(rawState) ? rawState : undefined;
  const fail = (error: string, description: string): AuthorizeCheck => ({ kind: 'redirect', redirectUri, state, error, description });

  if (repeated.length > 0) return fail('invalid_request', `${repeated.join(', ')} must be sent once`);
  if (rawState !== undefined && state === undefined) return fail('invalid_request', 'state must be 1 to 500 printable ASCII characters');
  const responseType = value('response_type');
  if (!responseType) return fail('invalid_request', 'response_type is required');
  if (responseType !== 'code') return fail('unsupported_response_type', 'only response_type=code is supported');

  const codeChallenge = value('code_challenge');
  if (!codeChallenge) return fail('invalid_request', 'PKCE is required: code_challenge is missing');
  if (value('code_challenge_method') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256');
  if (!S256_CHALLENGE.test(codeChallenge)) return fail('invalid_request', 'code_challenge must be 43 base64url characters (S256)');

  const rawScope = value('scope');
  const scope = resolveScope(rawScope === undefined ? undefined : rawScope.split(' ').filter(Boolean));
  if (!scope) return fail('invalid_scope', 'the only supported scope is brand');

  const platformId = value('platform_id');
  let platform: AuthorizeRequest['platform'] = null;
  if (platformId !== undefined) {
    if (!isUuid(platformId)) return fail('invalid_request', 'platform_id must be a platform id (UUID)');
    platform = (await lookups.findActivePlatform(platformId.toLowerCase())) ?? null;
    if (!platform) return fail('invalid_request', 'platform_id is not an active platform');
  }

  const registeredBy = await lookups.registeringBrand(client.id);
  return { kind: 'ok', request: { client, redirectUri, state, scope, codeChallenge, platform, registeredBy } };
}

/** The redirect back to the app, keeping any query the registered URI has; `iss` per RFC 9207. */
export function redirectTo(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}
