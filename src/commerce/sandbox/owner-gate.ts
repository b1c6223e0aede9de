import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Db } from '../../db/database.js';
import { formField } from '../../http/forms.js';
import { csrfTokenFor, csrfTokenMatches, type CookiePolicy } from '../../shared/cookies.js';
import { requireOwnOrigin } from '../../http/origin.js';
import { CSRF_FIELD, formExpiredPage, ownerOnlyPage, type SandboxPage } from './pages.js';
import { ownerSignedIn, storePath } from './owners.js';

/**
 * After signing in, only a page of the same store is followed: never another site or store. The
 * page's own query (a return address, a state) comes along; it is checked again where it is read.
 */
export function safeNext(domain: string, value: string | undefined): string {
  const base = storePath(domain);
  return value?.startsWith(`${base}/`) && /^[A-Za-z0-9/%._~?=&-]*$/.test(value) ? value : base;
}

/**
 * The sandbox platform's admin pages are its store owner's, as a real platform's admin is: a
 * page asks the owner to sign in first, and a form is taken only from the platform's own pages
 * (Origin), with the CSRF token of the page that showed it, from the signed-in owner. Each check
 * answers with what to send instead (a page or an address), or null to go on.
 */
export class OwnerGate {
  constructor(
    private readonly db: Db,
    private readonly policy: CookiePolicy,
  ) {}

  /** The CSRF token of the forms on the page answering `request` (their `csrf_token` field). */
  csrfToken(request: FastifyRequest, reply: FastifyReply): string {
    return csrfTokenFor(request, reply, this.policy);
  }

  /** Null when the store's owner is signed in; otherwise the store's sign-in address, coming back to this page. */
  async signInFirst(request: FastifyRequest, domain: string): Promise<string | null> {
    if (await ownerSignedIn(this.db, request, domain)) return null;
    return `${storePath(domain)}/sign-in?next=${encodeURIComponent(safeNext(domain, request.url))}`;
  }

  /** Null for a form from the platform's own page with its CSRF token; otherwise the 403 page. Throws 403 for another origin. */
  formRefusal(request: FastifyRequest): SandboxPage | null {
    requireOwnOrigin(request);
    if (csrfTokenMatches(request, formField(request.body, CSRF_FIELD))) return null;
    return formExpiredPage;
  }

  /** Null when the store's owner is signed in; otherwise the 403 page with a sign-in link. */
  async ownerRefusal(request: FastifyRequest, domain: string): Promise<SandboxPage | null> {
    if (await ownerSignedIn(this.db, request, domain)) return null;
    return ownerOnlyPage(domain);
  }
}
