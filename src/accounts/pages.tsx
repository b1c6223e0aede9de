import type { FastifyReply } from 'fastify';
import type { ComponentChildren, VNode } from 'preact';
import { browserAssets } from '../http/assets.js';
import { pagePolicy } from '../http/csp.js';
import { PageShell, sendPage } from '../http/page.js';

const SERVICE_NAME = 'Partner Collaboration';

export interface Page {
  title: string;
  body: ComponentChildren;
  /** Origins a form on the page may be redirected to after submission (CSP form-action follows redirects). */
  formTargets?: string[];
}

/** The staff sign-in, account and OAuth pages: one card with the service's name and the page's heading. */
export function AccountPage({ page, stylesheet }: { page: Page; stylesheet: string }): VNode {
  return (
    <PageShell title={`${page.title} · ${SERVICE_NAME}`} stylesheet={stylesheet}>
      <main>
        <p class="service">{SERVICE_NAME}</p>
        <h1>{page.title}</h1>
        {page.body}
      </main>
    </PageShell>
  );
}

/** Sends an account page: never cached, never framed, loading nothing but its stylesheet, forms to the service (and the page's targets). */
export async function sendAccountPage(reply: FastifyReply, status: number, page: Page): Promise<FastifyReply> {
  const assets = await browserAssets();
  return sendPage(reply, <AccountPage page={page} stylesheet={assets.url.accountStyle} />, {
    status,
    policy: pagePolicy({ 'form-action': page.formTargets ?? [] }),
  });
}

export const HiddenField = ({ name, value }: { name: string; value: string }) => <input type="hidden" name={name} value={value} />;

export function signInPage(options: { csrfToken: string; returnTo: string; email?: string; error?: string; intro?: string }): Page {
  const invalid = options.error ? ({ 'aria-invalid': 'true', 'aria-describedby': 'form-error' } as const) : {};
  return {
    title: 'Sign in to your brand',
    body: (
      <>
        {options.intro && <p>{options.intro}</p>}
        {options.error && (
          <div class="alert" role="alert" id="form-error">
            {options.error}
          </div>
        )}
        <form method="post" action="/account/sign-in" novalidate>
          <HiddenField name="csrf_token" value={options.csrfToken} />
          <HiddenField name="return_to" value={options.returnTo} />
          <label for="email">Email</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={options.email ?? ''} {...invalid} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required {...invalid} />
          <button type="submit" class="primary">
            Sign in
          </button>
        </form>
        <p class="muted">
          No account yet? <a href="/dashboard#/sign-up">Sign up on the brand dashboard</a> with your store, or join your brand there with an
          invitation code from a colleague.
        </p>
      </>
    ),
  };
}

export function messagePage(title: string, message: string): Page {
  return { title, body: <p role="alert">{message}</p> };
}

export const confirmStoreFirstPage: Page = {
  title: 'Confirm your store first',
  body: (
    <>
      <p>Your account does not act for a brand yet: the owner of the store you signed up with has to confirm it.</p>
      <p>
        <a href="/dashboard">Open the brand dashboard</a> to continue.
      </p>
    </>
  ),
};

export function signedInPage(user: { email: string; brand: string }, csrfToken: string): Page {
  return {
    title: 'You are signed in',
    body: (
      <>
        <dl>
          <dt>Signed in as</dt>
          <dd>{user.email}</dd>
          <dt>Brand</dt>
          <dd>{user.brand}</dd>
        </dl>
        <form method="post" action="/account/sign-out">
          <HiddenField name="csrf_token" value={csrfToken} />
          <button type="submit" class="secondary">
            Sign out
          </button>
        </form>
      </>
    ),
  };
}

export interface MailboxMessage {
  recipient: string;
  subject: string;
  body: string;
  created_at: Date;
}

/** A mail's addresses as links, so a tester opens a sign-up's link as a mail client would let them. */
function withLinks(text: string) {
  return text.split(/(https?:\/\/[^\s]+)/).map((part, index) => (index % 2 === 1 ? <a href={part}>{part}</a> : part));
}

export function mailboxPage(serviceEnv: string, messages: MailboxMessage[]): Page {
  return {
    title: 'Development mailbox',
    body: (
      <>
        <p class="muted">
          This {serviceEnv} host has no SMTP server (SMTP_URL), so the mail it sends is kept here, newest first, for a day. Production hosts
          send mail and have no such page.
        </p>
        {messages.length > 0 ? (
          <ul class="mailbox">
            {messages.map((message) => (
              <li>
                <dl>
                  <dt>To</dt>
                  <dd>{message.recipient}</dd>
                  <dt>Subject</dt>
                  <dd>{message.subject}</dd>
                  <dt>Sent</dt>
                  <dd>{message.created_at.toISOString()}</dd>
                </dl>
                <pre class="mail">{withLinks(message.body)}</pre>
              </li>
            ))}
          </ul>
        ) : (
          <p>No mail yet.</p>
        )}
      </>
    ),
  };
}
