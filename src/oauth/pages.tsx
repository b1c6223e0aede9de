import { HiddenField, type Page } from '../accounts/pages.js';
import type { AuthorizeRequest } from './authorize-request.js';
import { describeScope } from './scopes.js';

/** The authorization parameters a consent form sends back, so the decision is checked afresh. */
export function authorizeParams(request: AuthorizeRequest): Record<string, string> {
  return {
    response_type: 'code',
    client_id: request.client.id,
    redirect_uri: request.redirectUri,
    scope: request.scope.join(' '),
    code_challenge: request.codeChallenge,
    code_challenge_method: 'S256',
    ...(request.state === undefined ? {} : { state: request.state }),
    ...(request.platform ? { platform_id: request.platform.id } : {}),
  };
}

export function consentPage(options: {
  request: AuthorizeRequest;
  brandName: string;
  email: string;
  csrfToken: string;
  authorizeUrl: string;
}): Page {
  const { request } = options;
  const app = request.client.name;
  const brand = options.brandName;
  const redirect = new URL(request.redirectUri);
  return {
    title: `Allow ${app} to access ${brand}?`,
    formTargets: [redirect.origin],
    body: (
      <>
        <p>
          <strong>{app}</strong> is asking to act for your brand <strong>{brand}</strong>.
        </p>
        <dl>
          <dt>App</dt>
          <dd>{app}</dd>
          <dt>Registered by</dt>
          <dd>{request.registeredBy ? `the brand ${request.registeredBy}, not by Partner Collaboration` : 'Partner Collaboration'}</dd>
          <dt>Brand</dt>
          <dd>{brand}</dd>
          <dt>Platform</dt>
          <dd>{request.platform ? request.platform.name : 'None: the app names the platform on each request'}</dd>
          <dt>Signed in as</dt>
          <dd>{options.email}</dd>
        </dl>
        <p>If you allow it, {app} will be able to:</p>
        <ul>
          {describeScope(request.scope).map((text) => (
            <li>{text}</li>
          ))}
        </ul>
        <p class="muted">You will return to {redirect.host}.</p>
        <form method="post" action="/v1/oauth/authorize">
          <HiddenField name="csrf_token" value={options.csrfToken} />
          {Object.entries(authorizeParams(request)).map(([name, value]) => (
            <HiddenField name={name} value={value} />
          ))}
          <div class="actions">
            <button type="submit" name="decision" value="deny" class="secondary">
              Deny
            </button>
            <button type="submit" name="decision" value="approve" class="primary">
              Allow
            </button>
          </div>
        </form>
        <form method="post" action="/account/sign-out">
          <HiddenField name="csrf_token" value={options.csrfToken} />
          <HiddenField name="return_to" value={options.authorizeUrl} />
          <p class="muted">
            Not {options.email}?{' '}
            <button type="submit" class="link">
              Sign out
            </button>
          </p>
        </form>
      </>
    ),
  };
}

export function authorizeErrorPage(message: string): Page {
  return {
    title: 'This sign-in link does not work',
    body: (
      <>
        <div class="alert" role="alert">
          {message}
        </div>
        <p>
          Go back to the app you came from and try again. If it keeps happening, tell the app's developer: we did not send you back to it
          because the link could not be trusted.
        </p>
      </>
    ),
  };
}
