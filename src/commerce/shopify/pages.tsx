import type { FastifyReply } from 'fastify';
import type { ComponentChildren, HTMLAttributes } from 'preact';
import { browserAssets } from '../../http/assets.js';
import { renderToStaticMarkup } from 'preact-render-to-string';
import { pagePolicy, SELF } from '../../http/csp.js';
import { PageShell, sendPage } from '../../http/page.js';
import type { Runtime } from '../../composition.js';
import { minorUnitDigits } from '../../shared/currency.js';

/** The service's name as the store's staff read it on its pages. */
const SERVICE_NAME = 'Partner Collab';
/** The field of the confirmation form that names the question (a random token; the database keeps its hash). */
export const CONFIRMATION_FIELD = 'confirmation';
export const CSRF_FIELD = 'csrf_token';

async function sendShopifyPage(reply: FastifyReply, title: string, body: ComponentChildren, status = 200): Promise<FastifyReply> {
  const assets = await browserAssets();
  return sendPage(
    reply,
    <PageShell title={`${title} · ${SERVICE_NAME}`} stylesheet={assets.url.pagesStyle} noIndex>
      <main class="sheet">{body}</main>
    </PageShell>,
    { status },
  );
}

/** Where the merchant lands back from Shopify when the plugin did not ask to be returned to: on with the plugin's tab. */
export function sendDonePage(reply: FastifyReply, heading: string, shop: string): Promise<FastifyReply> {
  return sendShopifyPage(
    reply,
    heading,
    <>
      <h1>{heading}</h1>
      <p>
        Your Shopify store <strong>{shop}</strong> is connected to the partner network.
      </p>
      <p>Go back to the tab where you started: the plugin continues as soon as you return to it. You can close this tab.</p>
    </>,
  );
}

export interface ConfirmationQuestion {
  shop: string;
  shopName: string;
  /** The claimant's e-mail, when a sign-up asks to act for the store. */
  claimantEmail: string | null;
  /** Whether a plugin asks, and on whose pages it runs (null when the link named no platform the service knows). */
  plugin: { platformName: string | null } | null;
  token: string;
  csrfToken: string;
}

/**
 * What a verified Shopify callback asks the store's staff, who answer with a POST: the callback
 * alone (a chain of redirects any page can start) never confirms anything.
 */
export function sendConfirmationPage(reply: FastifyReply, question: ConfirmationQuestion): Promise<FastifyReply> {
  const pluginAsker = question.plugin?.platformName ?? `A ${SERVICE_NAME} plugin`;
  return sendShopifyPage(
    reply,
    'Confirm at Partner Collab',
    <>
      <h1>Confirm what you asked for</h1>
      <p>
        The app is installed on <strong>{question.shopName}</strong> ({question.shop}). Shopify signed you in as its staff, and asks nothing
        more when the app is already there, so this page asks you:
      </p>
      <ul class="asks">
        {question.claimantEmail !== null && (
          <li>
            <strong>{question.claimantEmail}</strong> asks to act for {question.shopName}: to manage its partnerships, offer, discount code,
            staff and API keys on {SERVICE_NAME}.
          </li>
        )}
        {question.plugin !== null && (
          <li>
            <strong>{pluginAsker}</strong> asks to turn on cross-promotion for this store: to create its discount code and accept the terms,
            from the plugin in the window you came from, during the next hour.
          </li>
        )}
      </ul>
      <p>Confirm only if you started this yourself, just now. If you did not, decline: nothing changes.</p>
      <form method="post" action="/commerce/shopify/confirm" class="row">
        <input type="hidden" name={CONFIRMATION_FIELD} value={question.token} />
        <input type="hidden" name={CSRF_FIELD} value={question.csrfToken} />
        <button type="submit" name="decision" value="confirm">
          Confirm
        </button>
        <button type="submit" name="decision" value="decline" class="secondary">
          Decline
        </button>
      </form>
    </>,
  );
}

/** A refusal in words the merchant can act on; nothing was written. */
export function sendRefusalPage(reply: FastifyReply, status: number, heading: string, text: string): Promise<FastifyReply> {
  return sendShopifyPage(
    reply,
    heading,
    <>
      <h1>{heading}</h1>
      <p role="alert">{text}</p>
    </>,
    status,
  );
}

/**
 * A callback whose install this browser no longer holds (its state cookie ran out while the
 * merchant signed in at Shopify, or the install was started in another browser): nothing was
 * installed, and the link starts the same install again.
 */
export function sendStartAgainPage(reply: FastifyReply, shop: string, restartUrl: string): Promise<FastifyReply> {
  return sendShopifyPage(
    reply,
    'Start the install again',
    <>
      <h1>Start the install again</h1>
      <p role="alert">
        The install of the app on <strong>{shop}</strong> took longer than this browser keeps it, or it was started in another browser.
        Nothing was installed and nothing was changed.
      </p>
      <p>
        <a class="button" href={restartUrl}>
          Start again
        </a>
      </p>
    </>,
    400,
  );
}

export const REFUSALS = {
  notClaimant: {
    status: 403,
    heading: 'Sign in as the account that asked',
    text:
      'Only the account that claimed this store can confirm its claim. Sign in to the dashboard with that account, ' +
      'then choose “Confirm at Shopify” there. Nothing was changed.',
  },
  formExpired: {
    status: 403,
    heading: 'This form has expired',
    text: 'Start again from where you came from (the dashboard or the plugin). Nothing was changed.',
  },
  answered: {
    status: 400,
    heading: 'This question was answered already or ran out',
    text: 'Start again from where you came from (the dashboard or the plugin). Nothing was changed.',
  },
  chooseDecision: { status: 400, heading: 'Choose Confirm or Decline', text: 'Go back and choose one of the two buttons.' },
} as const;

export function sendDeclinedPage(reply: FastifyReply, shop: string): Promise<FastifyReply> {
  return sendShopifyPage(
    reply,
    'Nothing confirmed',
    <>
      <h1>Nothing was confirmed</h1>
      <p>
        Nobody was allowed to act for <strong>{shop}</strong>. The app stays installed; remove it in your Shopify admin if you do not want
        it.
      </p>
    </>,
  );
}

/** The store's stage at the app home, as the plugin's onboarding describes it. */
type HomeState = Awaited<ReturnType<Runtime['onboarding']['homeState']>>;
/** What the merchant just did at the home, named in its address so the page can say what happened. */
export type HomeNote = 'plan' | 'consented' | 'turned_on' | 'claim_confirmed' | 'claim_declined';

export interface HomePage {
  shop: string;
  /** The app's client id, which App Bridge reads from the page (`shopify-api-key`). */
  apiKey: string;
  state: HomeState;
  note: HomeNote | null;
  /** The usage plan's terms, as the merchant will read them at Shopify. */
  terms: string;
  /** Dashboard sign-ups that claim this store and wait for its staff to confirm them, and the store's name to ask in. */
  claims: { shopName: string; asking: Array<{ claimId: string; email: string; businessName: string }> };
}

/** Shopify's App Bridge, which the admin's frame needs as the page's first script, from Shopify's CDN only. */
export const APP_BRIDGE_SCRIPT = 'https://cdn.shopify.com/shopifycloud/app-bridge.js';

/**
 * Route options of the pages the admin frames: no X-Frame-Options (it knows no list of origins),
 * so their Content-Security-Policy's frame-ancestors decides (`embeddedPolicy`).
 */
export const EMBEDDED_PAGE = { helmet: { xFrameOptions: false } } as const;

/**
 * The policy of a page in the admin's frame: framed only by the admin and the store's own admin
 * domain (Shopify's "Set up iframe protection"), App Bridge from Shopify's CDN, fetches to the
 * service. App Bridge adds a style element of its own (it hides its `ui-*` elements, which the
 * admin draws), so inline styles are allowed on these pages; scripts stay the service's and Shopify's.
 */
export function embeddedPolicy(shop: string) {
  return pagePolicy({
    'script-src': [...SELF, 'https://cdn.shopify.com'],
    'style-src': ["'unsafe-inline'"],
    'connect-src': SELF,
    'frame-ancestors': ['https://admin.shopify.com', `https://${shop}`],
  });
}

/** The head App Bridge needs: the app's client id, then App Bridge itself before any other script. */
async function embeddedHead({ apiKey, withScript }: { apiKey: string; withScript: boolean }) {
  const assets = await browserAssets();
  return (
    <>
      <meta name="shopify-api-key" content={apiKey} />
      <script src={APP_BRIDGE_SCRIPT} />
      {withScript && <script src={assets.url.shopifyHomeScript} defer />}
    </>
  );
}

async function sendEmbeddedPage(
  reply: FastifyReply,
  page: { title: string; apiKey: string; shop: string; withScript: boolean; status?: number },
  body: ComponentChildren,
): Promise<FastifyReply> {
  const assets = await browserAssets();
  return sendPage(
    reply,
    <PageShell
      title={`${page.title} · ${SERVICE_NAME}`}
      stylesheet={assets.url.shopifyHomeStyle}
      noIndex
      head={await embeddedHead({ apiKey: page.apiKey, withScript: page.withScript })}
    >
      {body}
    </PageShell>,
    { status: page.status ?? 200, policy: embeddedPolicy(page.shop) },
  );
}

const STEP_STATUS = { done: 'Done', active: 'In progress', pending: 'To do' } as const;

/** A button of the home: its script sends it as a fetch, which App Bridge signs with a fresh session token. */
function ActionForm({ page, action, label, children }: { page: HomePage; action: string; label: string; children?: ComponentChildren }) {
  return (
    <form method="post" action={`/commerce/shopify/home/${action}`} data-action={action}>
      <input type="hidden" name="shop" value={page.shop} />
      {children}
      <div class="actions">
        <button type="submit" class="primary">
          {label}
        </button>
      </div>
    </form>
  );
}

/** What the last action did, read from the stage it left the store at. */
function noteText(page: HomePage): string | null {
  if (page.note === 'claim_confirmed') {
    return 'Confirmed: their dashboard account acts for your brand from the next time it looks (it checks by itself).';
  }
  if (page.note === 'claim_declined') return 'Declined: their account does not act for your store, and their page says so.';
  const stage = page.state.kind === 'stage' ? page.state.stage : null;
  if (page.note === 'plan') {
    return stage === 'plan'
      ? 'The plan was not approved at Shopify, so nothing is charged and nothing was set up. Approve it below to go on.'
      : 'The plan is approved at Shopify.';
  }
  if ((page.note === 'consented' || page.note === 'turned_on') && stage === 'live') {
    return 'Cross-promotion is on: partners now show your offer to their shoppers.';
  }
  return null;
}

function Card({ title, children, refreshAfter }: { title: string; children: ComponentChildren; refreshAfter?: number }) {
  return (
    <section class="card" aria-labelledby="stage-title" data-refresh-after={refreshAfter}>
      <h2 id="stage-title" tabIndex={-1}>
        {title}
      </h2>
      {children}
    </section>
  );
}

/** Opens a page of the service outside the admin's frame (it refuses frames), in a tab of its own. */
function OutsideLink({ href, children }: { href: string; children: ComponentChildren }) {
  return (
    <a href={href} target="_blank" rel="noopener">
      {children}
    </a>
  );
}

function HomeBody({ page }: { page: HomePage }) {
  const { state } = page;
  const notConnected = (
    <Card title="Your store is not connected">
      <p>Open the app again from Apps in your Shopify admin to connect it.</p>
    </Card>
  );
  if (state.kind === 'notice') {
    switch (state.notice) {
      case 'not_eligible':
        return (
          <Card title="Your store cannot join yet">
            <ul>
              {state.reasons.map((reason) => (
                <li key={reason}>{reason}</li>
              ))}
            </ul>
            <p>Come back to this page once that has changed.</p>
          </Card>
        );
      case 'turned_off':
        return (
          <Card title="Cross-promotion is off">
            <p>You turned it off: partners do not show your offer until you turn it back on.</p>
            <ActionForm page={page} action="turn-on" label="Turn cross-promotion back on" />
          </Card>
        );
      default:
        return notConnected;
    }
  }
  switch (state.stage) {
    case 'install':
      return notConnected;
    case 'plan':
      return (
        <Card title="Step 1 of 3: approve the plan">
          <p>There is no monthly fee. You pay only when a partner brings you a new customer:</p>
          <p class="terms">{page.terms}.</p>
          <p>Shopify shows you the plan and bills it with your Shopify invoice.</p>
          <ActionForm page={page} action="plan" label="Approve the plan at Shopify" />
        </Card>
      );
    case 'setting_up':
    case 'delayed':
      return (
        <Card title="Step 2 of 3: setting up your store" refreshAfter={3000}>
          <p>
            We are reading your catalog and best sellers and finding brands that fit yours.
            {state.stage === 'delayed' ? ' This is taking longer than usual; it goes on by itself.' : ''}
          </p>
          <ol aria-label="Setup progress" class="steps">
            {state.steps.map((step) => (
              <li key={step.key} class={`step ${step.status}`}>
                {step.label}: <strong>{STEP_STATUS[step.status]}</strong>
              </li>
            ))}
          </ol>
          <p class="muted">This page looks again every few seconds.</p>
          <div class="actions">
            <button type="button" data-refresh>
              Check the progress now
            </button>
          </div>
        </Card>
      );
    case 'consent':
      return (
        <Card title="Step 3 of 3: turn on cross-promotion">
          <p>
            Partner brands will show an offer from <strong>{state.preview.businessName}</strong> to their shoppers after they buy.
            {state.preview.bestSellers.length > 0 && ` It features ${state.preview.bestSellers.map((item) => item.title).join(', ')}.`}
          </p>
          <ActionForm page={page} action="consent" label="Turn on cross-promotion">
            {state.existingDiscountPercent === null ? (
              <fieldset class="choices">
                <legend>Discount for a partner's shoppers on their first order</legend>
                {state.choices.map((percent) => (
                  <label key={percent} class="choice">
                    <input type="radio" name="discountPercent" value={String(percent)} required /> {percent}% off
                  </label>
                ))}
              </fieldset>
            ) : (
              <p>New customers from partners get your existing {state.existingDiscountPercent}% off their first order.</p>
            )}
            <p>
              By turning it on you accept the <OutsideLink href={state.termsUrl}>terms</OutsideLink> and the{' '}
              <OutsideLink href={state.privacyUrl}>privacy notice</OutsideLink>. A discount code is created in your Shopify store, usable
              once per customer.
            </p>
          </ActionForm>
        </Card>
      );
    case 'live':
      return (
        <Card title="You are live">
          <p>
            Partners show <strong>{state.offer.title}</strong> to their shoppers
            {state.offer.discountCode && (
              <>
                {' '}
                with the code <code>{state.offer.discountCode}</code>
              </>
            )}
            .
          </p>
          <p>
            Manage partnerships and campaigns in the <OutsideLink href={state.manageUrl}>dashboard</OutsideLink> (it opens in a new tab).
          </p>
        </Card>
      );
  }
}

/** An amount in minor units of an ISO 4217 currency, as the currency writes it ($1,000.00, ¥1,500). */
function money(minor: number, currency: string): string {
  const digits = minorUnitDigits(currency);
  const format = new Intl.NumberFormat('en-US', {
    style: 'currency',
    currency,
    minimumFractionDigits: digits,
    maximumFractionDigits: digits,
  });
  return format.format(minor / 10 ** digits);
}

/**
 * Shopify waits for the store's staff to approve a higher capped amount: the commissions held
 * until then, and Shopify's own page to approve it, opened in the admin's top window.
 */
/** A claim's answer: a form the page's script sends with the session token, never a link (a GET confirms nothing). */
function ClaimAnswerForm({ page, claimId, decision, label }: { page: HomePage; claimId: string; decision: string; label: string }) {
  return (
    <form method="post" action="/commerce/shopify/home/claim" data-action="claim">
      <input type="hidden" name="shop" value={page.shop} />
      <input type="hidden" name="claimId" value={claimId} data-field />
      <input type="hidden" name="decision" value={decision} data-field />
      <button type="submit" class={decision === 'confirm' ? 'primary' : 'secondary'}>
        {label}
      </button>
    </form>
  );
}

/** Sign-ups at the dashboard that claim this store: the staff, proved by their session token, confirm or decline each. */
function ClaimsAsking({ page }: { page: HomePage }) {
  const { shopName, asking } = page.claims;
  return (
    <section class="card" aria-labelledby="claims-title">
      <h2 id="claims-title">Who acts for {shopName}</h2>
      <p>Confirm only people who work for your store: their dashboard account then acts for your brand (partners, offers, statements).</p>
      <ul class="claims">
        {asking.map((claim) => (
          <li key={claim.claimId}>
            <p>
              <strong>{claim.email}</strong> asks to act for {shopName} (as “{claim.businessName}”).
            </p>
            <div class="actions">
              <ClaimAnswerForm page={page} claimId={claim.claimId} decision="confirm" label={`Confirm ${claim.email}`} />
              <ClaimAnswerForm page={page} claimId={claim.claimId} decision="decline" label={`Decline ${claim.email}`} />
            </div>
          </li>
        ))}
      </ul>
    </section>
  );
}

function CapRaise({ raise }: { raise: NonNullable<HomeState['capRaise']> }) {
  const held = raise.held.map((amount) => money(amount.amountMinor, amount.currency)).join(' and ');
  return (
    <section class="card banner" aria-labelledby="cap-raise-title">
      <h2 id="cap-raise-title">Approve a higher capped amount at {raise.platformName}</h2>
      <p>
        {held
          ? `Commissions of ${held} are held, not charged: they are over your plan's capped amount.`
          : "Your plan's capped amount is nearly used: commissions over it would be held, not charged."}{' '}
        {raise.platformName} asks you to approve a capped amount of {money(raise.cappedMinor, raise.currency)} every 30 days. Once you
        approve it, the held commissions are charged and this message goes away.
      </p>
      <p>
        <a class="button" href={raise.confirmationUrl} target="_top">
          Approve the higher cap at {raise.platformName}
        </a>
      </p>
    </section>
  );
}

/** The part of the home its script replaces after an action: what happened, the stage, a cap raise. */
function HomeView({ page }: { page: HomePage }) {
  const note = noteText(page);
  return (
    <>
      {note !== null && (
        <p role="status" class="banner success" tabIndex={-1}>
          {note}
        </p>
      )}
      {page.claims.asking.length > 0 && <ClaimsAsking page={page} />}
      <HomeBody page={page} />
      {page.state.capRaise && <CapRaise raise={page.state.capRaise} />}
    </>
  );
}

/** The home's view as HTML, for its script to show after an action (every value escaped by Preact). */
export function renderHomeView(page: HomePage): string {
  return renderToStaticMarkup(<HomeView page={page} />);
}

/**
 * The app home in the admin's frame: App Bridge, the admin's navigation menu and title bar, and
 * the store's stage with the same actions as the plugin.
 */
export function sendHomePage(reply: FastifyReply, page: HomePage): Promise<FastifyReply> {
  const home = `/commerce/shopify/app?${new URLSearchParams({ shop: page.shop, embedded: '1' }).toString()}`;
  return sendEmbeddedPage(
    reply,
    { title: 'Home', apiKey: page.apiKey, shop: page.shop, withScript: true },
    <>
      <ui-nav-menu>
        <a href={home} rel="home">
          Home
        </a>
      </ui-nav-menu>
      <ui-title-bar title={SERVICE_NAME} />
      {/* Named: the admin around the frame has a main landmark of its own. */}
      <main class="page" aria-label={SERVICE_NAME}>
        <h1 class="visually-hidden">
          {SERVICE_NAME} for {page.shop}
        </h1>
        <p role="alert" id="home-error" class="banner critical" hidden />
        <div id="home-view" data-shop={page.shop}>
          <HomeView page={page} />
        </div>
      </main>
    </>,
  );
}

/**
 * Shopify's session-token bounce page: App Bridge, loaded here, gets a fresh session token and
 * reloads the address in `shopify-reload` with it as `id_token`.
 */
export function sendBouncePage(reply: FastifyReply, apiKey: string, shop: string): Promise<FastifyReply> {
  return sendEmbeddedPage(
    reply,
    { title: 'Loading', apiKey, shop, withScript: false },
    <main class="page" aria-label={SERVICE_NAME}>
      <p role="status">Loading your app…</p>
      <p class="muted">If nothing happens, open the app again from Apps in your Shopify admin.</p>
    </main>,
  );
}

/**
 * A launch that did not verify, in words, with nothing started or written. Nobody may frame it:
 * the App URL's route leaves X-Frame-Options to its pages, and this one is not the admin's.
 */
export function sendHomeRefusal(reply: FastifyReply, refusal: { status: number; heading: string; text: string }): Promise<FastifyReply> {
  reply.header('X-Frame-Options', 'DENY');
  return sendShopifyPage(
    reply,
    refusal.heading,
    <>
      <h1>{refusal.heading}</h1>
      <p role="alert">{refusal.text}</p>
    </>,
    refusal.status,
  );
}

export const HOME_REFUSALS = {
  launch: {
    status: 401,
    heading: 'Open the app from your Shopify admin',
    text: 'This link was not signed by Shopify, or it is more than a minute old. Open the app again from Apps in your Shopify admin.',
  },
  choosePercent: 'Choose 10, 15, 20 or 25% off, then turn cross-promotion on. Nothing was changed.',
  wrongStage: 'Your store is not waiting for this any more (it may have moved on, or left). Nothing was changed.',
  claimAnswered: 'That request is not waiting for an answer any more (it was answered or withdrawn). Nothing was changed.',
} as const;

/** What App Bridge's elements take: the attributes of any element. */
type ElementAttributes = HTMLAttributes<HTMLElement>;

declare module 'preact' {
  namespace JSX {
    interface IntrinsicElements {
      /** App Bridge's navigation menu of the admin (its links, the first the app's home). */
      'ui-nav-menu': ElementAttributes;
      /** App Bridge's title bar of the admin. */
      'ui-title-bar': ElementAttributes & { title?: string };
    }
  }
}
