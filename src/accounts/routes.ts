import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { devMailbox } from './mail.js';
import { confirmStoreFirstPage, mailboxPage, messagePage, sendAccountPage, signedInPage, signInPage } from './pages.js';
import { formField } from '../http/forms.js';
import { CompanyParams, CreatedUser, CreateUserBody, UserList } from './schemas.js';
import { cookiePolicyFor, csrfTokenFor, csrfValid } from '../shared/cookies.js';
import { currentUser, endSession, startSession } from './sessions.js';
import { checkSignIn, createBrandUser, listBrandUsers } from './users.js';
import { signInWaitMessage } from './throttle.js';
import { DEVICE_COOKIE, setDeviceCookie } from './device-cookies.js';
import { isFromThisMachine } from '../http/client-address.js';
import { securePages } from '../http/security-headers.js';
import type { Runtime } from '../composition.js';

const errorRef = Type.Ref('ErrorResponse');

const DEFAULT_RETURN_TO = '/account';

/** Only paths of this service's own sign-in flows: anything else would make sign-in an open redirect. */
export function safeReturnTo(value: string | undefined): string {
  if (value === undefined) return DEFAULT_RETURN_TO;
  if (!/^\/(v1\/oauth\/authorize(\?|$)|account(\?|$))/.test(value)) return DEFAULT_RETURN_TO;
  return value;
}

export const accountRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = runtime;
  const policy = cookiePolicyFor(config.baseUrl);
  const serviceOrigin = new URL(config.baseUrl).origin;
  await app.register(cookie);
  await app.register(formbody);
  await securePages(app, config.baseUrl, { openedByOtherSites: true });

  app.get('/account/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const returnTo = safeReturnTo(formField(request.query, 'return_to'));
    if (await currentUser(db, request)) return reply.redirect(returnTo, 303);
    return sendAccountPage(reply, 200, signInPage({ csrfToken: csrfTokenFor(request, reply, policy), returnTo }));
  });

  app.post('/account/sign-in', { schema: { hide: true } }, async (request, reply) => {
    const returnTo = safeReturnTo(formField(request.body, 'return_to'));
    if (!csrfValid(request, formField(request.body, 'csrf_token'), serviceOrigin)) {
      return sendAccountPage(
        reply,
        403,
        messagePage('Please try again', 'This form has expired. Go back, reload the page and sign in again.'),
      );
    }
    const email = formField(request.body, 'email') ?? '';
    const password = formField(request.body, 'password') ?? '';
    const again = (status: number, error: string) =>
      sendAccountPage(reply, status, signInPage({ csrfToken: csrfTokenFor(request, reply, policy), returnTo, email, error }));
    if (email.trim() === '' || password === '') return again(400, 'Enter your email and your password.');

    const result = await checkSignIn(db, email, password, request.ip, new Date(), request.cookies[DEVICE_COOKIE]);
    if (result.outcome === 'rate_limited') {
      reply.header('Retry-After', String(result.retryAfterSeconds));
      return again(429, signInWaitMessage(result));
    }
    if (result.outcome === 'rejected') return again(401, 'The email or password is not correct.');
    await startSession(db, reply, policy, result.userId);
    setDeviceCookie(reply, policy, result.deviceCookie);
    if (result.companyId === null) {
      return sendAccountPage(reply, 200, confirmStoreFirstPage);
    }
    return reply.redirect(returnTo, 303);
  });

  app.post('/account/sign-out', { schema: { hide: true } }, async (request, reply) => {
    if (!csrfValid(request, formField(request.body, 'csrf_token'), serviceOrigin)) {
      return sendAccountPage(reply, 403, messagePage('Please try again', 'This form has expired. Reload the page and try again.'));
    }
    await endSession(db, request, reply, policy);
    const returnTo = safeReturnTo(formField(request.body, 'return_to'));
    return reply.redirect(returnTo === DEFAULT_RETURN_TO ? '/account/sign-in' : returnTo, 303);
  });

  app.get('/account', { schema: { hide: true } }, async (request, reply) => {
    const user = await currentUser(db, request);
    if (!user) return reply.redirect('/account/sign-in', 303);
    return sendAccountPage(
      reply,
      200,
      signedInPage({ email: user.email, brand: user.brandName ?? user.companyId }, csrfTokenFor(request, reply, policy)),
    );
  });

  // Outside prod with no SMTP server, mail stays in the database; this page is where a tester reads
  // it, on the machine running the service only: it shows everyone's reset tokens (docs/decisions.md).
  if (config.serviceEnv !== 'prod' && !config.mail.smtpUrl) {
    app.get('/account/dev-mailbox', { schema: { hide: true } }, async (request, reply) => {
      if (!isFromThisMachine(request)) {
        return sendAccountPage(
          reply,
          403,
          messagePage(
            "Open the mailbox on the service's machine",
            'The development mailbox shows every mail this host sent, password reset tokens included, so it opens only in a ' +
              'browser on the machine running the service, at localhost or 127.0.0.1. To receive mail elsewhere, the host needs SMTP_URL.',
          ),
        );
      }
      return sendAccountPage(reply, 200, mailboxPage(config.serviceEnv, await devMailbox(db)));
    });
  }

  app.post(
    '/admin/companies/:companyId/users',
    {
      schema: {
        summary: 'Create a staff account for a brand',
        description: 'The password is stored as an Argon2id hash only. Emails are unique across the service.',
        tags: ['admin'],
        params: CompanyParams,
        body: CreateUserBody,
        response: { 201: CreatedUser, 400: errorRef, 401: errorRef, 404: errorRef, 409: errorRef },
      },
    },
    async (request, reply) => {
      const created = await createBrandUser({ db }, request.params.companyId, request.body);
      return reply.status(201).send(created);
    },
  );

  app.get(
    '/admin/companies/:companyId/users',
    {
      schema: {
        summary: "List a brand's staff accounts",
        tags: ['admin'],
        params: CompanyParams,
        response: { 200: UserList, 401: errorRef, 404: errorRef },
      },
    },
    async (request) => {
      return { data: await listBrandUsers({ db }, request.params.companyId) };
    },
  );
};
