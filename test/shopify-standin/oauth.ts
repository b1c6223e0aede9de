import crypto from 'node:crypto';
import type { StandInCore } from './core.js';
import type { ShopRecord } from './model.js';
import { errorPage, grantPage } from './pages.js';

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
    const secretGiven = Buffer.from(String(body.client_secret ?? ''));
    const secret = Buffer.from(this.core.app.apiSecret);
    if (body.client_id !== this.core.app.apiKey || secretGiven.length !== secret.length || !crypto.timingSafeEqual(secretGiven, secret)) {
      return json(400, { error: 'invalid_client', error_description: 'Client credentials are invalid' });
    }
    if (body.expiring === '1' || body.expiring === 1 || body.expiring === true) {
      return json(400, {
        error: 'invalid_request',
        error_description: 'The Shopify stand-in does not implement expiring offline access tokens',
      });
    }
    const code = String(body.code ?? '');
    const pending = this.codes.get(code);
    // A code is single-use: it is gone from the moment it is presented, whatever happens next.
    this.codes.delete(code);
    if (!pending || pending.shop !== shop.domain || pending.expiresAt <= this.core.now().getTime() || !shop.installation.installed) {
      return json(400, { error: 'invalid_request', error_description: 'The authorization code was not found or was already used' });
    }
    const token = `shpua_${crypto.randomBytes(16).toString('hex')}`;
    shop.installation.tokens.add(token);
    return json(200, { access_token: token, scope: pending.scopes.join(',') });
  }
}
