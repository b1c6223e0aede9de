import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { SwaggerTransform } from '@fastify/swagger';
import { Type, type TSchema } from 'typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import OAuth2Server from '@node-oauth/oauth2-server';
import { sendAccountPage, signInPage } from '../accounts/pages.js';
import { formField } from '../http/forms.js';
import { currentUser } from '../accounts/service.js';
import { cookiePolicyFor, csrfTokenFor, csrfValid } from '../shared/cookies.js';
import { authorizeLookups, checkAuthorizeRequest, redirectTo } from './authorize-request.js';
import { authenticateClient, type Grantee, type ServiceClient } from './model.js';
import { redirectUriMatches } from './clients.js';
import { authorizeErrorPage, authorizeParams, consentPage } from './pages.js';
import { basicCredentials, revokePresentedToken } from './revocation.js';
import { grantTypeOverrides } from './code-grant.js';
import { CROSS_ORIGIN, NO_CORS } from '../http/cors.js';
import { securePages } from '../http/security-headers.js';
import { DATABASE_RETRY_AFTER_SECONDS, isDatabaseUnavailable } from '../http/error-handler.js';
import { SUPPORTED_SCOPES } from './scopes.js';
import {
  AuthorizationServerMetadata,
  AuthorizeQuery,
  oauthError,
  RevocationRequestForm,
  TokenRequestForm,
  TokenResponse,
} from './schemas.js';
import { described, emptyResponse, PUBLIC, RATE_LIMITED } from '../http/schemas.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS, AUTHORIZATION_CODE_LIFETIME_SECONDS, REFRESH_TOKEN_LIFETIME_SECONDS } from './tokens.js';
import type { Runtime } from '../composition.js';

const { OAuthError, ServerError, Request: OAuthRequest, Response: OAuthResponse } = OAuth2Server;

/** What the authorize pages look like in the reference: HTML for a person, not data for the app. */
const AUTHORIZE_PAGE_EXAMPLE = '<!doctype html><html lang="en">…</html>';

const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials'];

const OAUTH_RATE_LIMITED = oauthError(
  'Too many requests this minute; Retry-After says when to retry',
  'rate_limited',
  'rate limit of 600 requests per minute exceeded; retry in 12 s',
);
const OAUTH_UNAVAILABLE = oauthError(
  'The database could not be reached; retry after Retry-After seconds',
  'temporarily_unavailable',
  'the service is temporarily unavailable; retry shortly',
);

/** A route's OpenAPI entry with the form body it reads (application/x-www-form-urlencoded), for a route that parses the form itself. */
function documentForm(form: TSchema): SwaggerTransform {
  return ({ schema, url }) => ({ schema: { ...schema, body: form, consumes: ['application/x-www-form-urlencoded'] }, url });
}

/** A route's OpenAPI entry with the query it reads, for a route that checks the query itself. */
function documentQuery(query: TSchema): SwaggerTransform {
  return ({ schema, url }) => ({ schema: { ...schema, querystring: query }, url });
}

/** RFC 6749 5.2 error body. */
function sendOAuthError(reply: FastifyReply, status: number, error: string, description: string): FastifyReply {
  return reply
    .status(status)
    .header('Cache-Control', 'no-store')
    .header('Pragma', 'no-cache')
    .send({ error, error_description: description });
}

export const oauthRoutes: FastifyPluginAsync<Runtime> = async (plain, runtime) => {
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, bus, auth, oauth: model } = runtime;
  const policy = cookiePolicyFor(config.baseUrl);
  const serviceOrigin = new URL(config.baseUrl).origin;
  const issuer = config.baseUrl;
  await app.register(cookie);
  await app.register(formbody);
  await securePages(app, config.baseUrl, { openedByOtherSites: true });

  const lookups = authorizeLookups(db, auth);
  const tokenServer = new OAuth2Server({
    model,
    accessTokenLifetime: ACCESS_TOKEN_LIFETIME_SECONDS,
    refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_SECONDS,
    alwaysIssueNewRefreshToken: true,
    extendedGrantTypes: grantTypeOverrides,
    // Public clients prove possession with PKCE (codes) or hold the refresh token; the model
    // still demands the secret of every confidential client, whatever the grant.
    requireClientAuthentication: { authorization_code: false, refresh_token: false },
  });
  // At authorization the client is only identified (the browser holds no secret).
  const authorizeServer = new OAuth2Server({
    model: {
      ...model,
      getClient: async (clientId: string) => (await lookups.findClient(clientId)) ?? false,
      validateRedirectUri: async (redirectUri: string, client: OAuth2Server.Client) =>
        redirectUriMatches((client as ServiceClient).redirectUris, redirectUri),
    },
    authorizationCodeLifetime: AUTHORIZATION_CODE_LIFETIME_SECONDS,
    allowEmptyState: true,
  });

  // Public metadata, as the public API: a browser app discovers the endpoints before it calls them.
  app.get(
    '/.well-known/oauth-authorization-server',
    {
      config: CROSS_ORIGIN,
      schema: {
        summary: 'OAuth 2 authorization server metadata (RFC 8414)',
        operationId: 'getAuthorizationServerMetadata',
        tags: ['oauth'],
        security: PUBLIC,
        response: { 200: described('Where the OAuth endpoints are and what they support', AuthorizationServerMetadata), 429: RATE_LIMITED },
      },
    },
    async (_request, reply) => {
      reply.header('Cache-Control', 'public, max-age=3600');
      return {
        issuer,
        authorization_endpoint: `${issuer}/v1/oauth/authorize`,
        token_endpoint: `${issuer}/v1/oauth/token`,
        revocation_endpoint: `${issuer}/v1/oauth/revoke`,
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: GRANT_TYPES,
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        scopes_supported: [...SUPPORTED_SCOPES],
        authorization_response_iss_parameter_supported: true,
        service_documentation: `${issuer}/docs`,
      };
    },
  );

  // The authorize page is for people, in their own browser tab: no other site's script reads it.
  app.get(
    '/v1/oauth/authorize',
    {
      // The query is described, not validated by Fastify: checkAuthorizeRequest decides which errors go back to the app.
      config: { ...NO_CORS, swaggerTransform: documentQuery(AuthorizeQuery) },
      schema: {
        summary: 'Begin authorization (OAuth 2 authorization code with PKCE)',
        description:
          "Opened in the brand staff's browser by the app. Shows the sign-in page, then the consent page naming the app, " +
          'the scope and the platform; Allow redirects to redirect_uri with `code`, `state` and `iss`, Deny with ' +
          '`error=access_denied`. A bad request from a known client and redirect_uri goes back to the app as ' +
          '`error` and `error_description` (RFC 6749 4.1.2.1); an unknown client or redirect_uri is shown on a page instead.',
        operationId: 'beginAuthorization',
        tags: ['oauth'],
        security: PUBLIC,
        response: {
          200: {
            description: 'The sign-in page, or once signed in the consent page',
            content: { 'text/html': { schema: Type.String({ examples: [AUTHORIZE_PAGE_EXAMPLE] }) } },
          },
          303: emptyResponse('The request is wrong in a way the app must hear of: back to redirect_uri with error', {
            Location: { type: 'string', description: 'redirect_uri with error, error_description, state and iss' },
          }),
          400: {
            description: 'The client or redirect_uri is unknown, missing or sent twice: a page saying so',
            content: { 'text/html': { schema: Type.String({ examples: [AUTHORIZE_PAGE_EXAMPLE] }) } },
          },
          429: RATE_LIMITED,
        },
      },
    },
    async (request, reply) => {
      const check = await checkAuthorizeRequest(lookups, request.query);
      if (check.kind === 'page') return sendAccountPage(reply, 400, authorizeErrorPage(check.message));
      if (check.kind === 'redirect') {
        const { redirectUri, error, description, state } = check;
        return reply.redirect(redirectTo(redirectUri, { error, error_description: description, state, iss: issuer }), 303);
      }
      const csrfToken = csrfTokenFor(request, reply, policy);
      const user = await currentUser(db, request);
      if (!user) {
        const intro = `Sign in to let ${check.request.client.name} access your brand.`;
        return sendAccountPage(reply, 200, signInPage({ csrfToken, returnTo: request.url, intro }));
      }
      return sendAccountPage(
        reply,
        200,
        consentPage({
          request: check.request,
          brandName: user.brandName ?? user.companyId,
          email: user.email,
          csrfToken,
          authorizeUrl: request.url,
        }),
      );
    },
  );

  app.post('/v1/oauth/authorize', { config: NO_CORS, schema: { hide: true } }, async (request, reply) => {
    if (!csrfValid(request, formField(request.body, 'csrf_token'), serviceOrigin)) {
      return sendAccountPage(reply, 403, authorizeErrorPage('This form has expired. Go back to the app and start again.'));
    }
    const check = await checkAuthorizeRequest(lookups, request.body);
    if (check.kind === 'page') return sendAccountPage(reply, 400, authorizeErrorPage(check.message));
    if (check.kind === 'redirect') {
      const { redirectUri, error, description, state } = check;
      return reply.redirect(redirectTo(redirectUri, { error, error_description: description, state, iss: issuer }), 303);
    }
    const params = authorizeParams(check.request);
    const user = await currentUser(db, request);
    if (!user) return reply.redirect(`/v1/oauth/authorize?${new URLSearchParams(params).toString()}`, 303);
    const decision = formField(request.body, 'decision');
    if (decision !== 'approve' && decision !== 'deny') {
      return sendAccountPage(reply, 400, authorizeErrorPage('Choose Allow or Deny.'));
    }

    const grantee: Grantee = { userId: user.userId, companyId: user.companyId, platformId: check.request.platform?.id ?? null };
    const oauthRequest = new OAuthRequest({
      method: 'POST',
      headers: {},
      query: {},
      body: { ...params, allowed: decision === 'approve' ? 'true' : 'false' },
    });
    const oauthResponse = new OAuthResponse();
    try {
      await authorizeServer.authorize(oauthRequest, oauthResponse, { authenticateHandler: { handle: async () => grantee } });
    } catch (error) {
      if (!(error instanceof OAuthError) || error instanceof ServerError) throw error;
      const description = error.message;
      return reply.redirect(
        redirectTo(check.request.redirectUri, {
          error: error.name,
          error_description: description,
          state: check.request.state,
          iss: issuer,
        }),
        303,
      );
    }
    return reply.redirect(redirectTo(String(oauthResponse.get('Location')), { iss: issuer }), 303);
  });

  await app.register(async (scope) => {
    // Everything these endpoints answer, errors included, is RFC 6749 shaped.
    scope.setErrorHandler((error: { statusCode?: number; message: string; inner?: unknown }, request, reply) => {
      // The rate limiter has already set Retry-After and the RateLimit-* headers.
      if (error.statusCode === 429) return sendOAuthError(reply, 429, 'rate_limited', error.message);
      if (isDatabaseUnavailable(error) || isDatabaseUnavailable(error.inner)) {
        request.log.error({ err: error }, 'OAuth endpoint: database unavailable');
        reply.header('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS));
        return sendOAuthError(reply, 503, 'temporarily_unavailable', 'the service is temporarily unavailable; retry shortly');
      }
      if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
        return sendOAuthError(reply, 400, 'invalid_request', error.message);
      }
      request.log.error({ err: error }, 'OAuth endpoint failed');
      return sendOAuthError(reply, 500, 'server_error', 'the request could not be completed because of an error on our side');
    });

    /** The form body's text fields, and the first field sent more than once (RFC 6749 3.2 forbids it). */
    const formBody = (body: unknown): { fields: Record<string, string>; repeated: string | undefined } => {
      const fields: Record<string, string> = {};
      let repeated: string | undefined;
      for (const [name, value] of Object.entries((body && typeof body === 'object' ? body : {}) as Record<string, unknown>)) {
        if (Array.isArray(value)) repeated ??= name;
        else if (typeof value === 'string') fields[name] = value;
      }
      return { fields, repeated };
    };

    scope.post(
      '/v1/oauth/token',
      {
        // The form is described, not validated by Fastify: the handler checks it as RFC 6749 says and answers its errors.
        config: { swaggerTransform: documentForm(TokenRequestForm) },
        schema: {
          operationId: 'createToken',
          summary: 'Obtain tokens',
          description:
            'Form-encoded (RFC 6749). Grants: authorization_code (PKCE S256 required), refresh_token (rotates; reuse of a ' +
            'rotated token revokes the grant), client_credentials (confidential clients bound to a brand). Clients authenticate ' +
            'with HTTP Basic or client_id/client_secret in the body; public clients send client_id only.',
          tags: ['oauth'],
          security: [{ oauthClient: [] }, {}],
          response: {
            200: described('The tokens (RFC 6749 5.1); never cached', TokenResponse),
            400: oauthError(
              'invalid_request, invalid_grant (a code or refresh token unknown, expired, used or of another client), ' +
                'unsupported_grant_type or invalid_scope',
              'invalid_grant',
              'Invalid grant: authorization code is invalid',
            ),
            401: oauthError(
              'invalid_client: the client is unknown or its secret is wrong',
              'invalid_client',
              'client authentication failed',
            ),
            429: OAUTH_RATE_LIMITED,
            503: OAUTH_UNAVAILABLE,
          },
        },
      },
      async (request, reply) => {
        const { fields: body, repeated } = formBody(request.body);
        if (repeated) return sendOAuthError(reply, 400, 'invalid_request', `${repeated} must be sent once`);
        // Said before client authentication, which the library would otherwise demand for grants it does not know.
        if (body.grant_type !== undefined && !GRANT_TYPES.includes(body.grant_type)) {
          return sendOAuthError(reply, 400, 'unsupported_grant_type', `grant_type must be one of ${GRANT_TYPES.join(', ')}`);
        }
        const basic = basicCredentials(request.headers.authorization);
        if (basic === 'malformed') return sendOAuthError(reply, 401, 'invalid_client', 'the Authorization header is not valid HTTP Basic');
        if (basic && (body.client_secret !== undefined || (body.client_id !== undefined && body.client_id !== basic.clientId))) {
          return sendOAuthError(
            reply,
            400,
            'invalid_request',
            'authenticate with one method: HTTP Basic or client_secret in the body, not both',
          );
        }
        const { authorization: _authorization, ...headers } = request.headers;
        // Basic credentials are decoded here (the library would not undo their form encoding) and passed as body fields.
        const oauthRequest = new OAuthRequest({
          method: 'POST',
          headers: headers as Record<string, string>,
          query: {},
          body: basic ? { ...body, client_id: basic.clientId, client_secret: basic.clientSecret } : body,
        });
        let token: OAuth2Server.Token;
        try {
          token = await tokenServer.token(oauthRequest, new OAuthResponse());
        } catch (error) {
          if (!(error instanceof OAuthError) || error instanceof ServerError) throw error;
          if (error.name === 'invalid_client' && basic) {
            reply.header('WWW-Authenticate', 'Basic realm="oauth"');
            return sendOAuthError(reply, 401, error.name, error.message);
          }
          return sendOAuthError(reply, error.code, error.name, error.message);
        }
        const expiresIn = Math.max(0, Math.round((token.accessTokenExpiresAt!.getTime() - Date.now()) / 1000));
        return reply
          .header('Cache-Control', 'no-store')
          .header('Pragma', 'no-cache')
          .send({
            access_token: token.accessToken,
            token_type: 'Bearer',
            expires_in: expiresIn,
            ...(token.refreshToken ? { refresh_token: token.refreshToken } : {}),
            scope: (token.scope ?? []).join(' '),
          });
      },
    );

    scope.post(
      '/v1/oauth/revoke',
      {
        config: { swaggerTransform: documentForm(RevocationRequestForm) },
        schema: {
          operationId: 'revokeToken',
          summary: 'Revoke a token (RFC 7009)',
          description:
            'Form-encoded `token` (and optional `token_type_hint`). A refresh token revokes its whole grant. Answers 200 for unknown ' +
            'tokens too; a token issued to another client is refused with 400 invalid_grant.',
          tags: ['oauth'],
          security: [{ oauthClient: [] }],
          response: {
            200: emptyResponse('The token is revoked, or was unknown (RFC 7009 2.2)'),
            400: oauthError(
              'invalid_request (no token), or invalid_grant: the token was issued to another client',
              'invalid_grant',
              'the token was issued to another client',
            ),
            401: oauthError(
              'invalid_client: no client, an unknown client or a wrong secret',
              'invalid_client',
              'client authentication failed',
            ),
            429: OAUTH_RATE_LIMITED,
            503: OAUTH_UNAVAILABLE,
          },
        },
      },
      async (request, reply) => {
        const { fields: body, repeated } = formBody(request.body);
        if (repeated) return sendOAuthError(reply, 400, 'invalid_request', `${repeated} must be sent once`);
        const basic = basicCredentials(request.headers.authorization);
        if (basic === 'malformed') return sendOAuthError(reply, 401, 'invalid_client', 'the Authorization header is not valid HTTP Basic');
        const clientId = basic?.clientId ?? body.client_id;
        if (!clientId) return sendOAuthError(reply, 401, 'invalid_client', 'client authentication is required');
        const client = await authenticateClient(db, clientId, basic?.clientSecret ?? body.client_secret);
        if (!client) {
          if (basic) reply.header('WWW-Authenticate', 'Basic realm="oauth"');
          return sendOAuthError(reply, 401, 'invalid_client', 'client authentication failed');
        }
        if (!body.token) return sendOAuthError(reply, 400, 'invalid_request', 'token is required');
        const outcome = await revokePresentedToken(db, client.id, body.token);
        // RFC 6749 5.2 names a token "issued to another client" invalid_grant; RFC 7009 2.1 says refuse.
        if (outcome === 'other_client') return sendOAuthError(reply, 400, 'invalid_grant', 'the token was issued to another client');
        if (outcome === 'revoked') await bus.publish('credentials');
        return reply.header('Cache-Control', 'no-store').status(200).send();
      },
    );
  });
};
