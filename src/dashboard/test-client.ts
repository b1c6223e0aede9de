import type { App } from '../app.js';
import { csrfOf, mergeCookies } from '../../test/support/oauth-flow.js';

export const DASHBOARD_PASSWORD = 'correct horse battery staple';

/** A browser's view of the dashboard API in tests: keeps the cookies and sends the CSRF header. */
export class DashboardClient {
  cookies = '';

  constructor(private readonly app: App) {}

  async start(): Promise<this> {
    const response = await this.app.inject({ method: 'GET', url: '/dashboard/api/session' });
    this.cookies = mergeCookies(this.cookies, response);
    return this;
  }

  async get(url: string) {
    const response = await this.app.inject({ method: 'GET', url, headers: { cookie: this.cookies } });
    this.cookies = mergeCookies(this.cookies, response);
    return response;
  }

  async post(url: string, body?: unknown, options: { csrf?: string | null } = {}) {
    const csrf = options.csrf === undefined ? csrfOf(this.cookies) : options.csrf;
    const response = await this.app.inject({
      method: 'POST',
      url,
      headers: {
        cookie: this.cookies,
        ...(csrf === null ? {} : { 'x-csrf-token': csrf }),
        'content-type': 'application/json',
      },
      // The app sends a JSON body with every write, an empty object when there is nothing to say.
      payload: body === undefined ? '{}' : typeof body === 'string' ? body : JSON.stringify(body),
    });
    this.cookies = mergeCookies(this.cookies, response);
    return response;
  }

  /** Signs up a new brand; returns its company id. */
  async signUpBrand(businessName: string, domain: string, email: string, categories: string[] = []): Promise<string> {
    await this.start();
    const response = await this.post('/dashboard/api/sign-up', { email, password: DASHBOARD_PASSWORD, brand: { businessName, domain, categories } });
    if (response.statusCode !== 201) throw new Error(`sign-up failed: ${response.body}`);
    return response.json().companyId;
  }
}
