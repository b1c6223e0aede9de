import { createRequire } from 'node:module';
import OAuth2Server from '@node-oauth/oauth2-server';

const require = createRequire(import.meta.url);
const { InvalidGrantError, InvalidRequestError } = OAuth2Server;

interface StoredCode {
  redirectUri?: string;
  authorizationCode: string;
  user: unknown;
  scope?: string[];
}

interface LibraryGrantSteps {
  getAuthorizationCode(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<StoredCode>;
  verifyPKCE(request: OAuth2Server.Request, code: StoredCode): Promise<void> | void;
  validateRedirectUri(request: OAuth2Server.Request, code: StoredCode): void;
  revokeAuthorizationCode(code: StoredCode): Promise<StoredCode>;
  saveToken(user: unknown, client: OAuth2Server.Client, authorizationCode: string, scope?: string[]): Promise<OAuth2Server.Token>;
}

type GrantTypeClass = typeof OAuth2Server.AbstractGrantType;

// The library's authorization code grant; its package exposes it only by path.
const LibraryCodeGrant = require('@node-oauth/oauth2-server/lib/grant-types/authorization-code-grant-type.js') as new (
  ...args: ConstructorParameters<GrantTypeClass>
) => object;

/**
 * The library's authorization code grant, except:
 * - the PKCE verifier and the redirect URI are checked before the code is spent (the library spends
 *   it first), so whoever intercepts a code cannot stop the app that holds the verifier from
 *   redeeming it by sending a wrong one (issue 23). Guessing a S256 verifier online is hopeless:
 *   it has at least 256 bits.
 * - a redirect URI that differs from the one the code was issued for is `invalid_grant`, as
 *   RFC 6749 5.2 names it (the library says `invalid_request`). A missing redirect URI stays
 *   `invalid_request`: a required parameter.
 */
class RedirectBoundCodeGrant extends LibraryCodeGrant {
  async handle(request: OAuth2Server.Request, client: OAuth2Server.Client): Promise<OAuth2Server.Token> {
    const steps = this as unknown as LibraryGrantSteps;
    const code = await steps.getAuthorizationCode(request, client);
    await steps.verifyPKCE(request, code);
    steps.validateRedirectUri(request, code);
    await steps.revokeAuthorizationCode(code);
    return steps.saveToken(code.user, client, code.authorizationCode, code.scope);
  }

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
