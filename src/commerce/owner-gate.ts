import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../db/database.js';
import { formField } from '../accounts/schemas.js';
import { csrfTokenFor, csrfTokenMatches, type CookiePolicy } from '../accounts/sessions.js';
import { escapeHtml } from '../plugin/html.js';
import { requireOwnOrigin } from '../plugin/origin.js';
import type { SandboxPage } from './pages.js';
import { ownerSignedIn, storePath } from './sandbox-owners.js';

const CSRF_FIELD = 'csrf_token';

/**
 * After signing in, only a page of the same store is followed: never another site or store. The
 * page's own query (a return address, a state) comes along; it is checked again where it is read.
 */
export function safeNext(domain: string, value: string | undefined): string {
  const base = storePath(domain);
  return value !== undefined && value.startsWith(`${base}/`) && /^[A-Za-z0-9/%._~?=&-]*$/.test(value) ? value : base;
}

/**
 * The sandbox platform's admin pages are its store owner's, as a real platform's admin is: a
 * page asks the owner to sign in first, and a form is taken only from the platform's own pages
 * (Origin), with the CSRF token of the page that showed it, from the signed-in owner.
 */
export class OwnerGate {
  constructor(
    private readonly db: Db,
    private readonly policy: CookiePolicy,
    private readonly send: (reply: FastifyReply, page: SandboxPage) => Promise<FastifyReply>,
  ) {}

  /** The hidden CSRF field of a form on the page answering `request`. */
  csrfField(request: FastifyRequest, reply: FastifyReply): string {
    return `<input type="hidden" name="${CSRF_FIELD}" value="${escapeHtml(csrfTokenFor(request, reply, this.policy))}">`;
  }

  /** Null when the store's owner is signed in; otherwise the redirect to the store's sign-in, coming back here. */
  async page(request: FastifyRequest, reply: FastifyReply, domain: string): Promise<FastifyReply | null> {
    if (await ownerSignedIn(this.db, request, domain)) return null;
    const next = safeNext(domain, request.url);
    return reply.redirect(`${storePath(domain)}/sign-in?next=${encodeURIComponent(next)}`, 303);
  }

  /** A form from the platform's own page with its CSRF token (403 otherwise); throws 403 for another origin. */
  async formToken(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | null> {
    requireOwnOrigin(request);
    if (csrfTokenMatches(request, formField(request.body, CSRF_FIELD))) return null;
    return this.send(reply, {
      title: 'Please try again',
      status: 403,
      body: '<h1>Please try again</h1><p>This form has expired. Go back, reload the page and try again.</p>',
    });
  }

  /** Null when the store's owner is signed in; otherwise the 403 page with a sign-in link. */
  async owner(request: FastifyRequest, reply: FastifyReply, domain: string): Promise<FastifyReply | null> {
    if (await ownerSignedIn(this.db, request, domain)) return null;
    return this.send(reply, {
      title: 'Sign in first',
      status: 403,
      body: `<h1>Sign in first</h1><p>Only the store's owner, signed in, can do this. <a href="${storePath(domain)}/sign-in">Sign in</a>.</p>`,
    });
  }

  /** formToken, then owner. */
  async ownerForm(request: FastifyRequest, reply: FastifyReply, domain: string): Promise<FastifyReply | null> {
    return (await this.formToken(request, reply)) ?? (await this.owner(request, reply, domain));
  }
}
