import { createRequire } from 'node:module';
import OAuth2Server from '@node-oauth/oauth2-server';

const require = createRequire(import.meta.url);
const { InvalidGrantError, InvalidRequestError } = OAuth2Server;

interface StoredCode {
  redirectUri?: string;
}

type GrantTypeClass = typeof OAuth2Server.AbstractGrantType;

// The library's authorization code grant; its package exposes it only by path.
const LibraryCodeGrant = require('@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type.js') as new (
  ...args: ConstructorParameters<GrantTypeClass>
) => object;

/**
 * The library's authorization code grant, except for a redirect URI that differs from the one
 * the code was issued for: RFC 6749 5.2 names that `invalid_grant` (the library says
 * `invalid_request`). A missing redirect URI stays `invalid_request`: a required parameter.
 */
class RedirectBoundCodeGrant extends LibraryCodeGrant {
  validateRedirectUri(request: OAuth2Server.Request, code: StoredCode): void {
    if (!code.redirectUri) return;
    const redirectUri: unknown = request.body.redirect_uri;
    if (typeof redirectUri !== 'string' || redirectUri === '') {
      throw new InvalidRequestError('Missing parameter: `redirect_uri` (it was sent with the authorization request)');
    }
    if (redirectUri !== code.redirectUri) {
      throw new InvalidGrantError('Invalid grant: `redirect_uri` differs from the one the authorization code was issued for');
    }
  }
}

/** Grant types that replace the library's own (its `extendedGrantTypes` option). */
export const grantTypeOverrides: Record<string, GrantTypeClass> = {
  authorization_code: RedirectBoundCodeGrant as unknown as GrantTypeClass,
};
