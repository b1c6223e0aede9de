import type { Db } from '../db/database.js';
import type { ServiceEnv } from '../config.js';
import { hashSecret, randomToken } from '../shared/keys.js';
import { lookalikeSkeleton } from '../shared/lookalike.js';
import { ApiError, badRequest, notFound } from '../http/errors.js';
import { companyExists } from '../companies/service.js';
import type { DataContext } from '../service-context.js';
import * as dal from './dal.js';

export interface NewOAuthClient {
  /** Generated when omitted. */
  clientId?: string;
  name: string;
  redirectUris: string[];
  /** Confidential clients get a secret (returned once, stored hashed); public clients use PKCE alone. */
  confidential: boolean;
  /** For a confidential client: the brand its client_credentials tokens act for. */
  companyId?: string | null;
  /** A given secret (fixtures), refused when SERVICE_ENV=prod. */
  clientSecret?: string;
}

export interface RegisteredClient {
  clientId: string;
  name: string;
  redirectUris: string[];
  confidential: boolean;
  companyId: string | null;
  /** Present once, at registration, for confidential clients. */
  clientSecret?: string;
}

const CLIENT_ID_PATTERN = /^[A-Za-z0-9._-]{3,100}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);
export const MAX_REDIRECT_URIS = 20;

/** The failed check for a redirect URI, or null: absolute, no fragment, https unless loopback. */
export function redirectUriProblem(uri: string): string | null {
  let parsed: URL;
  try {
    parsed = new URL(uri);
  } catch {
    return `redirect URI ${uri} is not an absolute URL`;
  }
  if (parsed.hash !== '' || uri.includes('#')) return `redirect URI ${uri} must not have a fragment`;
  if (parsed.protocol === 'https:') return null;
  if (parsed.protocol === 'http:' && LOOPBACK_HOSTS.has(parsed.hostname)) return null;
  return `redirect URI ${uri} must use https (http is allowed only for 127.0.0.1, localhost and [::1])`;
}

/**
 * A loopback IP redirect URI as a native app sends it: http, 127.0.0.1 or [::1], an optional
 * port, and the rest from the path on. Read from the text, not from a URL parser, which would
 * accept other spellings of the same address (127.1, 2130706433) and normalize the path.
 */
const LOOPBACK_IP_REDIRECT = /^http:\/\/(127\.0\.0\.1|\[::1\])(?::([1-9]\d{0,4}))?([/?].*)?$/s;

/** The URI without its port when it is a loopback IP redirect URI with a valid or no port. */
function withoutLoopbackPort(uri: string): string | undefined {
  const match = LOOPBACK_IP_REDIRECT.exec(uri);
  if (!match || Number(match[2] ?? 0) > 65535) return undefined;
  return `http://${match[1]}${match[3] ?? ''}`;
}

/**
 * Whether a redirect URI sent by a client is one it registered: exactly (RFC 6749 3.1.2, no
 * prefix or trailing-slash leniency), except that a loopback IP redirect URI matches with any
 * port (RFC 8252 7.3: a native app listens on whatever port the system gives it), scheme, host,
 * path and query still exactly. `localhost` is matched exactly, port included (RFC 8252 8.3: its
 * name may not resolve to the loopback interface; docs/oauth.md).
 */
export function redirectUriMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  const portless = withoutLoopbackPort(requested);
  return portless !== undefined && registered.some((uri) => withoutLoopbackPort(uri) === portless);
}

/**
 * Registers an OAuth client. Used by the admin API and the support CLI
 * (`registerOAuthClient({ db, serviceEnv }, { name, redirectUris, confidential })`).
 * Throws ApiError: 400 for a bad field, 404 for an unknown company, 409 `client_exists`.
 */
export async function registerOAuthClient(ctx: { db: Db; serviceEnv: ServiceEnv }, input: NewOAuthClient): Promise<RegisteredClient> {
  const clientId = input.clientId ?? newClientId();
  if (!CLIENT_ID_PATTERN.test(clientId)) throw badRequest('clientId must be 3 to 100 letters, digits, dots, dashes or underscores');
  checkNameAndRedirectUris(input);
  const companyId = input.companyId ?? null;
  if (companyId !== null && !input.confidential) {
    throw badRequest('companyId is only for confidential clients (client_credentials needs a secret)');
  }
  if (input.clientSecret !== undefined) {
    if (!input.confidential) throw badRequest('a public client has no secret');
    if (ctx.serviceEnv === 'prod') throw badRequest('clients with a given secret are refused when SERVICE_ENV=prod');
    if (input.clientSecret.length < 32) throw badRequest('clientSecret must be at least 32 characters');
  }
  if (companyId !== null && !(await companyExists(ctx, companyId))) throw notFound(`no company ${companyId}`);

  const clientSecret = input.confidential ? (input.clientSecret ?? newClientSecret()) : undefined;
  const inserted = await dal.insertClient(ctx.db, {
    clientId,
    name: input.name.trim(),
    secretHash: clientSecret === undefined ? null : hashSecret(clientSecret),
    redirectUris: [...new Set(input.redirectUris)],
    companyId,
  });
  if (!inserted) throw new ApiError(409, 'client_exists', `an OAuth client ${clientId} already exists`);
  return {
    clientId,
    name: input.name.trim(),
    redirectUris: [...new Set(input.redirectUris)],
    confidential: input.confidential,
    companyId,
    ...(clientSecret === undefined ? {} : { clientSecret }),
  };
}

const newClientId = () => `oc_${randomToken(24)}`;
const newClientSecret = () => `svc_cs_${randomToken(43)}`;

function checkNameAndRedirectUris(input: { name: string; redirectUris: string[] }): void {
  if (input.name.trim() === '' || input.name.length > 100) throw badRequest('name must be 1 to 100 characters');
  if (input.redirectUris.length === 0 || input.redirectUris.length > MAX_REDIRECT_URIS) {
    throw badRequest(`redirectUris must list 1 to ${MAX_REDIRECT_URIS} URIs`);
  }
  for (const uri of input.redirectUris) {
    const problem = redirectUriProblem(uri);
    if (problem) throw badRequest(problem);
  }
}

/**
 * Words a brand's app name may not carry: the service's own name and "official", in any case,
 * spacing, punctuation, compatibility form or look-alike letters ("Partner Collaboration
 * (official)", "ＰａｒｔｎｅｒＣｏｌｌａｂ", "Pаrtner Collab" with a Cyrillic а, "PartnerCoIIab").
 * Support's registrations (the admin API) may use them.
 */
const RESERVED_APP_WORDS = ['Partner Collab', 'official'].map(lookalikeSkeleton);

function checkNotReserved(name: string): void {
  const skeleton = lookalikeSkeleton(name);
  if (RESERVED_APP_WORDS.some((word) => skeleton.includes(word))) {
    throw badRequest(
      'name must not name Partner Collaboration or say "official": the consent page shows your brand as the app’s registrant',
    );
  }
}

/** How many OAuth apps one brand may register itself; support registers more. */
export const MAX_APPS_PER_BRAND = 20;

/**
 * An OAuth app a brand registers on its dashboard (Integrations), with the same checks as
 * support's registrations. The brand owns the registration: it lists and deletes it. A
 * confidential app gets a secret, shown once, and may use client_credentials for this brand
 * (its own backend); a public one uses PKCE alone. Any brand's staff may authorize either.
 * Throws ApiError: 400 for a bad field, 409 `too_many_apps` past MAX_APPS_PER_BRAND.
 */
export async function registerBrandApp(
  ctx: { db: Db },
  companyId: string,
  input: { name: string; redirectUris: string[]; confidential: boolean },
): Promise<RegisteredClient> {
  checkNameAndRedirectUris(input);
  checkNotReserved(input.name);
  const clientId = newClientId();
  const clientSecret = input.confidential ? newClientSecret() : undefined;
  const client = {
    clientId,
    name: input.name.trim(),
    redirectUris: [...new Set(input.redirectUris)],
    companyId: input.confidential ? companyId : null,
  };
  const outcome = await dal.insertBrandClient(
    ctx.db,
    { ...client, secretHash: clientSecret === undefined ? null : hashSecret(clientSecret), ownerCompanyId: companyId },
    MAX_APPS_PER_BRAND,
  );
  if (outcome === 'limit') {
    throw new ApiError(409, 'too_many_apps', `a brand registers at most ${MAX_APPS_PER_BRAND} OAuth apps: delete one you no longer use`);
  }
  if (outcome === 'taken') throw new ApiError(409, 'client_exists', `an OAuth client ${clientId} already exists`);
  return { ...client, confidential: input.confidential, ...(clientSecret === undefined ? {} : { clientSecret }) };
}

/** The OAuth apps a brand registered, oldest first, never their secrets. */
export async function listBrandApps(ctx: { db: Db }, companyId: string) {
  return (await dal.listBrandClients(ctx.db, companyId)).map((row) => ({
    clientId: row.client_id,
    name: row.name,
    confidential: row.secret_hash !== null,
    redirectUris: row.redirect_uris,
    createdAt: row.created_at.toISOString(),
  }));
}

/**
 * A brand deletes an app it registered: every brand's authorization of it and every token it
 * holds end with it (the tables cascade). Another brand's app, or support's, is not found.
 */
export async function deleteBrandApp(ctx: DataContext, companyId: string, clientId: string): Promise<void> {
  if (!(await dal.deleteBrandClient(ctx.db, companyId, clientId))) throw notFound(`no OAuth app ${clientId} registered by your brand`);
  await ctx.bus.publish('credentials');
}

/** Support's list of registered clients, never their secrets. */
export async function listOAuthClients(ctx: { db: Db }) {
  return dal.listClients(ctx.db);
}
