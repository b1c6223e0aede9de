import crypto from 'node:crypto';
import type { StandInCore } from './core.js';
import type { ShopRecord } from './model.js';
import { errorPage, grantPage } from './pages.js';
import { verifySessionToken } from './session-tokens.js';
import { newAccessToken } from './tokens.js';

/**
 * Shopify's authorization code grant for offline access tokens
 * (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/authorization-code-grant):
 * GET /admin/oauth/authorize shows the shop's staff a grant page (or, when the app already holds
 * every requested scope, redirects straight back); "Install app" redirects to the app's
 * redirect_uri with code, hmac, host, shop, state and timestamp, signed as Shopify signs them;
 * POST /admin/oauth/access_token trades the code, once, before it expires, for a token.
 * The shop's staff is taken to be signed in: there is no Shopify login on the stand-in.
 */
export const AUTHORIZATION_CODE_TTL_MS = 5 * 60_000;
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const OFFLINE_TOKEN_TYPE = 'urn:shopify:params:oauth:token-type:offline-access-token';
const ONLINE_TOKEN_TYPE = 'urn:shopify:params:oauth:token-type:online-access-token';
const ID_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id_token';
/** Online access tokens live until the staff member's session would end: Shopify answers `expires_in` 86399 (24 hours). */
export const ONLINE_TOKEN_SECONDS = 86_399;
/**
 * What Shopify answers a token exchange whose session token it will not take (bad signature, another
 * app's, expired, another store's), word for word as a real answer read (quoted in
 * kinngh/shopify-node-express-mongodb-app issue 135); the token-exchange page documents the 400.
 */
export const INVALID_SUBJECT_TOKEN = {
  status: 400,
  body: { error: 'invalid_subject_token', error_description: 'Token exchange cannot be performed due to an invalid subject token.' },
};
/** What Shopify answers for a refresh token (or an exchanged token) it will not take: unknown, expired, spent, or the app uninstalled. */
export const INVALID_GRANT = { status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } };
const isTrue = (value: unknown) => value === '1' || value === 1 || value === true;
const SCOPE_PATTERN = /^(?:unauthenticated_)?(?:read|write)_[a-z_]+$/;

interface PendingCode {
  shop: string;
  scopes: string[];
  expiresAt: number;
}

const html = (status: number, body: string) => new Response(body, { status, headers: { 'content-type': 'text/html; charset=utf-8' } });
const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json; charset=utf-8' } });

/**
 * The message Shopify signs: every parameter but hmac, sorted by name, joined as a query string
 * (spaces as %20). The signature is its HMAC-SHA256, hex, keyed by the app's secret.
 */
export function signQuery(secret: string, params: Record<string, string>): string {
  const message = new URLSearchParams(
    Object.keys(params)
      .filter((key) => key !== 'hmac' && key !== 'signature')
      .sort((left, right) => left.localeCompare(right))
      .map((key) => [key, params[key]!]),
  )
    .toString()
    .replace(/\+/g, '%20');
  return crypto.createHmac('sha256', secret).update(message).digest('hex');
}

/** Shopify's `host` parameter: base64 of the shop's admin address, unpadded. */
export const hostParameter = (shopDomain: string) =>
  Buffer.from(`admin.shopify.com/store/${shopDomain.split('.')[0]}`)
    .toString('base64')
    .replace(/=+$/, '');

export class OAuthEndpoints {
  private readonly codes = new Map<string, PendingCode>();

  constructor(private readonly core: StandInCore) {}

  private oauthError(kind: string, message: string): Response {
    return html(400, errorPage('Oauth error', `Oauth error ${kind}: ${message}`));
  }

  private grantToken(shop: ShopRecord, fields: Record<string, string>): string {
    return signQuery(this.core.app.apiSecret, { ...fields, purpose: 'grant', shop: shop.domain });
  }

  private redirectBack(shop: ShopRecord, redirectUri: string, state: string, scopes: string[]): Response {
    const code = crypto.randomBytes(16).toString('hex');
    this.codes.set(code, { shop: shop.domain, scopes, expiresAt: this.core.now().getTime() + AUTHORIZATION_CODE_TTL_MS });
    const params: Record<string, string> = {
      code,
      host: hostParameter(shop.domain),
      shop: shop.domain,
      state,
      timestamp: String(Math.floor(this.core.now().getTime() / 1000)),
    };
    const target = new URL(redirectUri);
    for (const [key, value] of Object.entries(params)) target.searchParams.set(key, value);
    target.searchParams.set('hmac', signQuery(this.core.app.apiSecret, Object.fromEntries(target.searchParams)));
    return new Response(null, { status: 302, headers: { location: target.toString() } });
  }

  authorize(shop: ShopRecord, url: URL): Response {
    const query = url.searchParams;
    const clientId = query.get('client_id') ?? '';
    const redirectUri = query.get('redirect_uri') ?? '';
    const state = query.get('state') ?? '';
    const scopes = (query.get('scope') ?? '')
      .split(',')
      .map((scope) => scope.trim())
      .filter(Boolean);
    if (clientId !== this.core.app.apiKey) return this.oauthError('invalid_request', 'The client_id is not recognized');
    if (!this.core.app.redirectUrls.includes(redirectUri)) return this.oauthError('invalid_request', 'The redirect_uri is not whitelisted');
    const invalid = scopes.find((scope) => !SCOPE_PATTERN.test(scope));
    if (invalid) return this.oauthError('invalid_scope', `The access scope is invalid: ${invalid}`);
    if (query.get('grant_options[]') === 'per-user') {
      return this.oauthError('invalid_request', 'The Shopify stand-in does not implement online (per-user) access tokens');
    }
    const installation = shop.installation;
    if (installation.installed && scopes.every((scope) => installation.scopes.includes(scope))) {
      return this.redirectBack(shop, redirectUri, state, installation.scopes);
    }
    const fields = { client_id: clientId, scope: scopes.join(','), redirect_uri: redirectUri, state };
    return html(
      200,
      grantPage({
        appTitle: this.core.app.title,
        shop: shop.domain,
        scopes,
        fields: { ...fields, grant_token: this.grantToken(shop, fields) },
      }),
    );
  }

  /** The staff clicked "Install app": the app is installed with the scopes shown. */
  async grant(shop: ShopRecord, request: Request): Promise<Response> {
    const form = new URLSearchParams(await request.text());
    const fields = {
      client_id: form.get('client_id') ?? '',
      scope: form.get('scope') ?? '',
      redirect_uri: form.get('redirect_uri') ?? '',
      state: form.get('state') ?? '',
    };
    const expected = Buffer.from(this.grantToken(shop, fields));
    const given = Buffer.from(form.get('grant_token') ?? '');
    if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected))
      return this.oauthError('invalid_request', 'The grant form was altered');
    const scopes = fields.scope.split(',').filter(Boolean);
    shop.installation.installed = true;
    shop.installation.scopes = scopes;
    return this.redirectBack(shop, fields.redirect_uri, fields.state, scopes);
  }

  async accessToken(shop: ShopRecord, request: Request): Promise<Response> {
    const text = await request.text();
    const isJson = (request.headers.get('content-type') ?? '').includes('application/json');
    let body: Record<string, unknown>;
    try {
      body = isJson ? (JSON.parse(text) as Record<string, unknown>) : Object.fromEntries(new URLSearchParams(text));
    } catch {
      return json(400, { error: 'invalid_request', error_description: 'The request body is not valid JSON' });
    }
    const grant =
      body.grant_type === 'refresh_token' ? 'refresh_token' : body.grant_type === TOKEN_EXCHANGE ? 'token_exchange' : 'authorization_code';
    const answer = this.tokenAnswer(shop, body, grant);
    shop.installation.tokenRequests.push({ grant, status: answer.status, at: this.core.now() });
    return json(answer.status, answer.body);
  }

  /**
   * Token exchange of a session token (https://shopify.dev/docs/apps/build/authentication-authorization/access-tokens/token-exchange):
   * the app's frontend got the token from App Bridge (or the App URL's `id_token`), its backend trades
   * it for an offline token (expiring with `expiring=1`: a pair, as the authorization code grant gives)
   * or an online one (the staff member's, 24 hours, with `associated_user`). The store must have the app
   * installed: Shopify installs it before the admin ever issues a session token for it (managed
   * installation), so a token for a store without it is refused as any other bad subject token.
   */
  private exchangeSessionToken(shop: ShopRecord, body: Record<string, unknown>): { status: number; body: unknown } {
    const payload = verifySessionToken(this.core.app, String(body.subject_token ?? ''), this.core.now());
    const staff = payload ? this.core.staff.byId(Number(payload.sub)) : undefined;
    const installation = shop.installation;
    if (!payload || payload.dest !== `https://${shop.domain}` || !staff?.stores.has(shop.domain) || !installation.installed) {
      return INVALID_SUBJECT_TOKEN;
    }
    const scope = installation.scopes.join(',');
    if (body.requested_token_type === OFFLINE_TOKEN_TYPE) {
      if (isTrue(body.expiring)) return { status: 200, body: this.core.tokens.issuePair(installation) };
      const token = newAccessToken();
      installation.tokens.add(token);
      return { status: 200, body: { access_token: token, scope } };
    }
    if (body.requested_token_type === ONLINE_TOKEN_TYPE) {
      const token = newAccessToken();
      installation.tokens.add(token);
      installation.accessExpiries.set(token, this.core.now().getTime() + ONLINE_TOKEN_SECONDS * 1000);
      return {
        status: 200,
        body: {
          access_token: token,
          scope,
          expires_in: ONLINE_TOKEN_SECONDS,
          associated_user_scope: scope,
          associated_user: {
            id: staff.id,
            first_name: staff.firstName,
            last_name: staff.lastName,
            email: staff.email,
            account_owner: staff.stores.get(shop.domain)?.accountOwner ?? false,
            locale: staff.locale,
            collaborator: false,
            email_verified: true,
          },
        },
      };
    }
    return {
      status: 400,
      body: { error: 'invalid_request', error_description: 'requested_token_type must be an offline or an online access token' },
    };
  }

  private tokenAnswer(
    shop: ShopRecord,
    body: Record<string, unknown>,
    grant: 'authorization_code' | 'refresh_token' | 'token_exchange',
  ): { status: number; body: unknown } {
    const secretGiven = Buffer.from(String(body.client_secret ?? ''));
    const secret = Buffer.from(this.core.app.apiSecret);
    if (body.client_id !== this.core.app.apiKey || secretGiven.length !== secret.length || !crypto.timingSafeEqual(secretGiven, secret)) {
      return { status: 400, body: { error: 'invalid_client', error_description: 'Client credentials are invalid' } };
    }
    const installation = shop.installation;
    if (grant === 'refresh_token') {
      const pair = this.core.tokens.refresh(installation, String(body.refresh_token ?? ''));
      return pair ? { status: 200, body: pair } : INVALID_GRANT;
    }
    if (grant === 'token_exchange' && body.subject_token_type === ID_TOKEN_TYPE) return this.exchangeSessionToken(shop, body);
    if (grant === 'token_exchange') {
      if (body.subject_token_type !== OFFLINE_TOKEN_TYPE || body.requested_token_type !== OFFLINE_TOKEN_TYPE || !isTrue(body.expiring)) {
        return {
          status: 400,
          body: { error: 'invalid_request', error_description: 'Only a non-expiring offline token can be exchanged, for an expiring one' },
        };
      }
      const pair = this.core.tokens.migrate(installation, String(body.subject_token ?? ''));
      return pair ? { status: 200, body: pair } : INVALID_GRANT;
    }
    const code = String(body.code ?? '');
    const pending = this.codes.get(code);
    // A code is single-use: it is gone from the moment it is presented, whatever happens next.
    this.codes.delete(code);
    if (!pending || pending.shop !== shop.domain || pending.expiresAt <= this.core.now().getTime() || !installation.installed) {
      return {
        status: 400,
        body: { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' },
      };
    }
    if (isTrue(body.expiring))
      return { status: 200, body: { ...this.core.tokens.issuePair(installation), scope: pending.scopes.join(',') } };
    const token = newAccessToken();
    installation.tokens.add(token);
    return { status: 200, body: { access_token: token, scope: pending.scopes.join(',') } };
  }
}
