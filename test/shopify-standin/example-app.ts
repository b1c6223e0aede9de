import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Session } from '@shopify/shopify-api';
import type { shopifyLibraryFor } from './shopify-library.js';

/**
 * A minimal app on `@shopify/shopify-api` (node adapter) that the stand-in's own tests drive, and
 * an example for the adapter: install (auth.begin), callback (auth.callback: HMAC, state, code
 * exchange), a webhook endpoint (webhooks.validate over the raw body) and a billing return page.
 */
type Shopify = ReturnType<typeof shopifyLibraryFor>;

export interface ReceivedWebhook {
  valid: boolean;
  topic: string | null;
  webhookId: string | null;
  body: string;
}

export interface ExampleApp {
  baseUrl: string;
  callbackUrl: string;
  sessions: Session[];
  webhooks: ReceivedWebhook[];
  billingReturns: string[];
  close(): Promise<void>;
}

async function readBody(request: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startExampleApp(makeShopify: (hostName: string) => Shopify): Promise<ExampleApp> {
  const sessions: Session[] = [];
  const webhooks: ReceivedWebhook[] = [];
  const billingReturns: string[] = [];
  let shopify: Shopify | undefined;
  const server = http.createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://app.local');
    try {
      if (url.pathname === '/install') {
        await shopify!.auth.begin({
          shop: url.searchParams.get('shop') ?? '',
          callbackPath: '/callback',
          isOnline: false,
          rawRequest: request,
          rawResponse: response,
        });
        return;
      }
      if (url.pathname === '/callback') {
        const { session } = await shopify!.auth.callback({ rawRequest: request, rawResponse: response });
        sessions.push(session);
        response
          .writeHead(200, { 'content-type': 'text/html' })
          .end(`<!doctype html><title>Installed</title><h1>Installed on ${session.shop}</h1>`);
        return;
      }
      if (url.pathname === '/webhooks' && request.method === 'POST') {
        const rawBody = await readBody(request);
        const check = await shopify!.webhooks.validate({ rawBody, rawRequest: request, rawResponse: response });
        webhooks.push({
          valid: check.valid,
          topic: check.valid ? check.topic : null,
          webhookId: check.valid ? check.webhookId : null,
          body: rawBody,
        });
        response.writeHead(check.valid ? 200 : 401).end();
        return;
      }
      if (url.pathname === '/billing/return') {
        billingReturns.push(url.search);
        response.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Plan approved</title><h1>Plan approved</h1>');
        return;
      }
      response.writeHead(404).end();
    } catch (error) {
      response.writeHead(400, { 'content-type': 'text/plain' }).end(error instanceof Error ? error.constructor.name : 'Error');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hostName = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  shopify = makeShopify(hostName);
  return {
    baseUrl: `http://${hostName}`,
    callbackUrl: `http://${hostName}/callback`,
    sessions,
    webhooks,
    billingReturns,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}

/** The `name=value` pairs of a response's Set-Cookie headers, as a Cookie header. */
export function cookiesFrom(response: Response): string {
  return response.headers
    .getSetCookie()
    .map((cookie) => cookie.split(';')[0])
    .join('; ');
}

/** The hidden fields of the stand-in's grant page. */
export function formFields(html: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const match of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) {
    fields[match[1]!] = match[2]!.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));
  }
  return fields;
}

export const BROWSER_USER_AGENT = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0 Safari/537.36';
