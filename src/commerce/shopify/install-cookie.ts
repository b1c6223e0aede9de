import crypto from 'node:crypto';
import cookie from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type CookiePolicy, cookieOptions } from '../../shared/cookies.js';
import { constantTimeEqual, hashSecret } from '../../shared/keys.js';
import type { PendingInstall } from './service.js';

/** The cookie that carries an install from its start to Shopify's callback, in the browser that started it. */
export const INSTALL_COOKIE = 'svc_shopify_install';

interface CookieValue extends PendingInstall {
  /** The SHA-256 of the OAuth state the library made for this install (the callback's `state`). */
  stateHash: string;
  /** When the install's window closes, in milliseconds since the epoch. */
  expiresAt: number;
}

/**
 * What an install carries (the plugin's challenge and platform, a claim and its claimant's session,
 * the return path) rides in a signed, expiring cookie of the browser that started it, bound to the
 * install's OAuth state, instead of a table of installs in flight (issue 44): a stranger's
 * anonymous installs write nothing on the server, so they can neither evict a merchant's install nor
 * fill a table every merchant needs. The cookie is signed with a key derived from the app's secret
 * (HMAC-SHA256, `@fastify/cookie`'s signer), HttpOnly, SameSite=Lax (Shopify's redirect back is a
 * top-level GET, which carries it) and sent only to the callback.
 */
export class InstallCookies {
  private readonly signer: InstanceType<typeof cookie.Signer>;

  constructor(
    apiSecret: string,
    private readonly policy: CookiePolicy,
    private readonly windowMs: number,
    private readonly callbackPath: string,
  ) {
    this.signer = new cookie.Signer(crypto.createHmac('sha256', apiSecret).update('svc shopify install cookie').digest());
  }

  private options(maxAgeSeconds: number) {
    return { ...cookieOptions(this.policy, maxAgeSeconds), path: this.callbackPath };
  }

  set(reply: FastifyReply, state: string, install: PendingInstall, now: Date): void {
    const value: CookieValue = { ...install, stateHash: hashSecret(state), expiresAt: now.getTime() + this.windowMs };
    const encoded = Buffer.from(JSON.stringify(value)).toString('base64url');
    reply.setCookie(INSTALL_COOKIE, this.signer.sign(encoded), this.options(Math.floor(this.windowMs / 1000)));
  }

  /** The install this browser started last, while its window is open: what a "start again" link repeats. */
  lastStarted(request: FastifyRequest, now: Date): (PendingInstall & { stateHash: string }) | undefined {
    const raw = request.cookies[INSTALL_COOKIE];
    const unsigned = raw === undefined ? undefined : this.signer.unsign(raw);
    if (!unsigned?.valid) return undefined;
    let value: CookieValue;
    try {
      value = JSON.parse(Buffer.from(unsigned.value, 'base64url').toString('utf8')) as CookieValue;
    } catch {
      return undefined;
    }
    if (value.expiresAt <= now.getTime()) return undefined;
    const { expiresAt: _, ...install } = value;
    return install;
  }

  /** The install this browser started for the callback's state and shop, while its window is open. */
  read(request: FastifyRequest, state: string, shop: string, now: Date): PendingInstall | undefined {
    const started = this.lastStarted(request, now);
    if (started?.shop !== shop || !constantTimeEqual(started.stateHash, hashSecret(state))) return undefined;
    const { stateHash: _, ...install } = started;
    return install;
  }

  clear(reply: FastifyReply): void {
    reply.clearCookie(INSTALL_COOKIE, this.options(0));
  }
}
