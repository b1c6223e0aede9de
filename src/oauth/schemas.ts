import { Type, type Static } from 'typebox';
import { described, OneLineText } from '../http/schemas.js';

export const RegisterClientBody = Type.Object(
  {
    clientId: Type.Optional(Type.String({ description: 'Generated (oc_…) when omitted' })),
    name: OneLineText({ maxLength: 100, description: 'Shown to brand staff on the consent page' }),
    redirectUris: Type.Array(Type.String({ maxLength: 2000 }), {
      description: 'Exact-match redirect URIs; https, or http on loopback only',
    }),
    confidential: Type.Boolean({
      description: 'true: a secret is issued (shown once, stored hashed); false: public client using PKCE alone',
    }),
    companyId: Type.Optional(
      Type.Union([Type.String(), Type.Null()], {
        description: 'Confidential clients only: the brand its client_credentials tokens act for',
      }),
    ),
  },
  { title: 'RegisterOAuthClientRequest', additionalProperties: false },
);
export type RegisterClientBody = Static<typeof RegisterClientBody>;

const ClientFields = {
  clientId: Type.String(),
  name: Type.String(),
  redirectUris: Type.Array(Type.String()),
  confidential: Type.Boolean(),
  companyId: Type.Union([Type.String(), Type.Null()]),
};

export const RegisteredClientResponse = Type.Object(
  { ...ClientFields, clientSecret: Type.Optional(Type.String({ description: 'Shown once; only its hash is stored' })) },
  { title: 'RegisteredOAuthClient' },
);

export const ClientList = Type.Object({ data: Type.Array(Type.Object({ ...ClientFields, createdAt: Type.String() })) });

// --- the public OAuth endpoints, as the API reference describes them ---

const EXAMPLE_CLIENT_ID = 'svc_client_8f2a41c0d9e3';

export const AuthorizationServerMetadata = Type.Object(
  {
    issuer: Type.String(),
    authorization_endpoint: Type.String(),
    token_endpoint: Type.String(),
    revocation_endpoint: Type.String(),
    response_types_supported: Type.Array(Type.String()),
    response_modes_supported: Type.Array(Type.String()),
    grant_types_supported: Type.Array(Type.String()),
    code_challenge_methods_supported: Type.Array(Type.String()),
    token_endpoint_auth_methods_supported: Type.Array(Type.String()),
    revocation_endpoint_auth_methods_supported: Type.Array(Type.String()),
    scopes_supported: Type.Array(Type.String()),
    authorization_response_iss_parameter_supported: Type.Boolean(),
    service_documentation: Type.String(),
  },
  {
    title: 'AuthorizationServerMetadata',
    examples: [
      {
        issuer: 'https://api.partner-collab.example',
        authorization_endpoint: 'https://api.partner-collab.example/v1/oauth/authorize',
        token_endpoint: 'https://api.partner-collab.example/v1/oauth/token',
        revocation_endpoint: 'https://api.partner-collab.example/v1/oauth/revoke',
        response_types_supported: ['code'],
        response_modes_supported: ['query'],
        grant_types_supported: ['authorization_code', 'refresh_token', 'client_credentials'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
        scopes_supported: ['brand'],
        authorization_response_iss_parameter_supported: true,
        service_documentation: 'https://api.partner-collab.example/docs',
      },
    ],
  },
);

/**
 * The authorization request's query (RFC 6749 4.1.1 with PKCE, RFC 7636). Documentation only: the
 * route checks it itself (src/oauth/authorize-request.ts), because which errors go back to the app
 * and which stay on a page depends on the client and redirect_uri being known good.
 */
export const AuthorizeQuery = Type.Object({
  response_type: Type.String({ enum: ['code'], description: 'Always code' }),
  client_id: Type.String({ description: 'The app asking', examples: [EXAMPLE_CLIENT_ID] }),
  redirect_uri: Type.String({
    description: 'One of the redirect URIs registered for the client, matched exactly',
    examples: ['https://app.example/callback'],
  }),
  code_challenge: Type.String({
    description: 'PKCE: base64url of the SHA-256 of the code verifier, 43 characters',
    examples: ['E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'],
  }),
  code_challenge_method: Type.String({ enum: ['S256'], description: 'Always S256' }),
  scope: Type.Optional(Type.String({ description: 'Space-separated; brand is the one scope (and the default)', examples: ['brand'] })),
  state: Type.Optional(
    Type.String({ description: 'Returned unchanged with the code: 1 to 500 printable ASCII characters', examples: ['af0ifjsldkj'] }),
  ),
  platform_id: Type.Optional(
    Type.String({
      format: 'uuid',
      description: "An active platform the token will carry: the app's calls are then credited to it (SPEC 4.1)",
      examples: ['3f1c2a9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b'],
    }),
  ),
});

/** The token request's form fields (RFC 6749 4.1.3, 4.4.2, 6); the handler checks them as the RFC says. */
export const TokenRequestForm = Type.Object(
  {
    grant_type: Type.String({ enum: ['authorization_code', 'refresh_token', 'client_credentials'] }),
    code: Type.Optional(Type.String({ description: 'authorization_code: the code from the redirect' })),
    redirect_uri: Type.Optional(Type.String({ description: 'authorization_code: the redirect_uri of the authorization request' })),
    code_verifier: Type.Optional(Type.String({ description: 'authorization_code: the PKCE verifier (S256)' })),
    refresh_token: Type.Optional(Type.String({ description: 'refresh_token: the refresh token, rotated by this call' })),
    scope: Type.Optional(Type.String({ description: 'Space-separated; brand is the one scope' })),
    client_id: Type.Optional(Type.String({ description: 'Without HTTP Basic: the client id (public clients send only this)' })),
    client_secret: Type.Optional(Type.String({ description: 'Without HTTP Basic: the secret of a confidential client' })),
  },
  {
    title: 'TokenRequest',
    examples: [
      {
        grant_type: 'authorization_code',
        code: 'svc_code_Jq3v0m9XkRgN2tL7wYb4',
        redirect_uri: 'https://app.example/callback',
        code_verifier: 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk',
        client_id: EXAMPLE_CLIENT_ID,
      },
    ],
  },
);

export const TokenResponse = Type.Object(
  {
    access_token: Type.String({ description: 'Sent as Authorization: Bearer; valid about an hour' }),
    token_type: Type.Literal('Bearer'),
    expires_in: Type.Integer({ description: 'Seconds the access token stays valid' }),
    refresh_token: Type.Optional(
      Type.String({ description: 'Valid about 5 years; each use returns a new one. Not issued for client_credentials' }),
    ),
    scope: Type.String({ description: 'Granted scopes, space-separated' }),
  },
  {
    title: 'TokenResponse',
    examples: [
      {
        access_token: 'svc_at_4kT9xQ2mVb7nR1wLc8pZ3yHd',
        token_type: 'Bearer',
        expires_in: 3600,
        refresh_token: 'svc_rt_N6gW2sJ8vK0qX5cT1mBf9rLe',
        scope: 'brand',
      },
    ],
  },
);

/** The token revocation request's form fields (RFC 7009 2.1). */
export const RevocationRequestForm = Type.Object(
  {
    token: Type.String({ description: 'The access or refresh token to revoke; a refresh token revokes its whole grant' }),
    token_type_hint: Type.Optional(Type.String({ enum: ['access_token', 'refresh_token'] })),
    client_id: Type.Optional(Type.String({ description: 'Without HTTP Basic: the client id' })),
    client_secret: Type.Optional(Type.String({ description: 'Without HTTP Basic: the secret of a confidential client' })),
  },
  {
    title: 'RevocationRequest',
    examples: [{ token: 'svc_rt_N6gW2sJ8vK0qX5cT1mBf9rLe', token_type_hint: 'refresh_token', client_id: EXAMPLE_CLIENT_ID }],
  },
);

const OAuthErrorBody = Type.Object(
  {
    error: Type.String({ description: 'RFC 6749 5.2 error code' }),
    error_description: Type.String({ description: 'What went wrong, in words' }),
  },
  { title: 'OAuthError' },
);

/** An RFC 6749 error answer of the token and revocation endpoints: when it comes, and an example. */
export function oauthError(description: string, error: string, errorDescription: string): typeof OAuthErrorBody {
  return described(description, { ...OAuthErrorBody, examples: [{ error, error_description: errorDescription }] });
}
