import crypto from 'node:crypto';
import type { App } from '../../src/app.js';

/** The sandbox store owner's password in tests: the store's own sign-in, not the dashboard's. */
export const STORE_OWNER_PASSWORD = 'the store owner password';

export interface SandboxResponse {
  status: number;
  location: string | undefined;
  body: string;
  cookies: Array<{ name: string; value: string }>;
}

/** How a test reaches the sandbox's pages: in process (inject) or over HTTP (a service process). */
export interface SandboxTransport {
  /** The Origin a browser sends from the service's own pages. */
  origin: string;
  send(request: { method: 'GET' | 'POST'; url: string; headers: Record<string, string>; body?: string }): Promise<SandboxResponse>;
}

export function injectTransport(app: App): SandboxTransport {
  return {
    // app.inject sends Host: localhost:80.
    origin: 'http://localhost:80',
    async send(request) {
      const response = await app.inject({
        method: request.method,
        url: request.url,
        headers: request.headers,
        ...(request.body === undefined ? {} : { payload: request.body }),
      });
      return {
        status: response.statusCode,
        location: response.headers.location as string | undefined,
        body: response.body,
        cookies: response.cookies,
      };
    },
  };
}

export function fetchTransport(baseUrl: string): SandboxTransport {
  return {
    origin: baseUrl,
    async send(request) {
      const response = await fetch(`${baseUrl}${request.url}`, {
        method: request.method,
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
      });
      const cookies = response.headers.getSetCookie().map((line) => {
        const [pair] = line.split(';');
        const at = pair!.indexOf('=');
        return { name: pair!.slice(0, at), value: pair!.slice(at + 1) };
      });
      return { status: response.status, location: response.headers.get('location') ?? undefined, body: await response.text(), cookies };
    },
  };
}

/**
 * A store's owner signed in at the sandbox commerce platform, as a browser would be: keeps the
 * cookies and sends each form with the CSRF token its page carries, from the platform's origin.
 */
export class StoreOwner {
  private readonly jar = new Map<string, string>();

  private constructor(
    private readonly transport: SandboxTransport,
    readonly domain: string,
  ) {}

  /** Signs in (setting up the owner sign-in of a store nobody knows); throws when the store refuses. */
  static async signIn(
    transport: SandboxTransport,
    domain: string,
    owner = { email: `owner@${domain}`, password: STORE_OWNER_PASSWORD },
  ): Promise<StoreOwner> {
    const session = new StoreOwner(transport, domain);
    const answer = await session.signInAnswer(owner);
    if (answer.status !== 303) throw new Error(`store owner sign-in for ${domain} failed: ${answer.status} ${answer.body.slice(0, 300)}`);
    return session;
  }

  /** A browser at the sandbox that has not signed in to any store yet. */
  static visitor(transport: SandboxTransport, domain: string): StoreOwner {
    return new StoreOwner(transport, domain);
  }

  async signInAnswer(owner: { email: string; password: string }): Promise<SandboxResponse> {
    await this.get(`/sandbox/stores/${this.domain}/sign-in`);
    return this.postTo(`/sandbox/stores/${this.domain}/sign-in`, { email: owner.email, password: owner.password, next: '' });
  }

  get cookieHeader(): string {
    return [...this.jar].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  get csrfToken(): string {
    return this.jar.get('svc_csrf') ?? '';
  }

  async get(url: string): Promise<SandboxResponse> {
    return this.keep(await this.transport.send({ method: 'GET', url, headers: { cookie: this.cookieHeader } }));
  }

  /** One of the store's owner forms (install, plan, confirm, uninstall, close-campaign), as its page sends it. */
  post(action: string, fields: Record<string, string> = {}): Promise<SandboxResponse> {
    return this.postTo(`/sandbox/stores/${this.domain}/${action}`, fields);
  }

  async postTo(url: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<SandboxResponse> {
    if (!this.jar.has('svc_csrf')) await this.get(`/sandbox/stores/${this.domain}/sign-in`);
    return this.keep(
      await this.transport.send({
        method: 'POST',
        url,
        headers: {
          cookie: this.cookieHeader,
          origin: this.transport.origin,
          'content-type': 'application/x-www-form-urlencoded',
          ...headers,
        },
        body: new URLSearchParams({ csrf_token: this.csrfToken, ...fields }).toString(),
      }),
    );
  }

  private keep(response: SandboxResponse): SandboxResponse {
    for (const cookie of response.cookies) this.jar.set(cookie.name, cookie.value);
    return response;
  }
}

/**
 * What the embed app does to act for a store: its page's secret, whose hash the owner confirms at
 * the sandbox, traded for the store-bound token. Returns the token.
 */
export async function merchantToken(transport: SandboxTransport, owner: StoreOwner, platformId: string): Promise<string> {
  const secret = crypto.randomBytes(32).toString('base64url');
  const challenge = crypto.createHash('sha256').update(secret).digest('hex');
  const confirmed = await owner.post('confirm', { state: challenge });
  if (confirmed.status !== 200) throw new Error(`confirmation at the sandbox failed: ${confirmed.status} ${confirmed.body.slice(0, 300)}`);
  const exchanged = await transport.send({
    method: 'POST',
    url: '/plugin/v2/token',
    headers: { origin: transport.origin, 'content-type': 'application/json' },
    body: JSON.stringify({ platformId, domain: owner.domain, secret }),
  });
  if (exchanged.status !== 200) throw new Error(`token exchange failed: ${exchanged.status} ${exchanged.body}`);
  return (JSON.parse(exchanged.body) as { token: string }).token;
}
