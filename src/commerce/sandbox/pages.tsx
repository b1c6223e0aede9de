import type { FastifyReply } from 'fastify';
import type { ComponentChildren, VNode } from 'preact';
import { browserAssets } from '../../http/assets.js';
import { ANY_IMAGE, pagePolicy } from '../../http/csp.js';
import { PageShell, sendPage } from '../../http/page.js';
import type { CatalogProduct } from '../adapter.js';
import type * as dal from './dal.js';
import { majorUnits } from '../../shared/currency.js';
import { discountedCents, SANDBOX_CURRENCY, SANDBOX_PLATFORM_NAME } from './adapter.js';
import { storePath } from './owners.js';

/** A refund the sandbox store admin takes: major units with at most two decimals (the browser checks it too). */
export const REFUND_AMOUNT = /^\d{1,7}(\.\d{1,2})?$/;

/** The service's app as the sandbox commerce platform names it to merchants. */
export const APP_NAME = 'Partner Collab';

/** An amount of the sandbox's currency in its minor units, written as the currency writes it ($12.34). */
export function money(cents: number): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: SANDBOX_CURRENCY }).format(majorUnits(cents, SANDBOX_CURRENCY));
}

export interface SandboxPage {
  title: string;
  body: ComponentChildren;
  status?: number;
  /** What part of the platform the page belongs to, shown in the top bar. */
  area?: string;
}

/**
 * The sandbox's pages show store images from anywhere. Their forms may finish by redirecting back
 * to the page where the plugin lives (the return flow), on the platform's own origin, and browsers
 * apply form-action to those redirects: so no form-action.
 */
const SANDBOX_POLICY = pagePolicy({ 'img-src': ANY_IMAGE, 'form-action': null });

/** Sends one of the sandbox platform's server-rendered pages: no script, never cached, never framed. */
export async function sendSandboxPage(reply: FastifyReply, page: SandboxPage): Promise<FastifyReply> {
  const assets = await browserAssets();
  return sendPage(
    reply,
    <PageShell title={`${page.title} · ${SANDBOX_PLATFORM_NAME}`} stylesheet={assets.url.pagesStyle} bodyClass="sandbox">
      <header class="topbar">
        <a href="/sandbox">{SANDBOX_PLATFORM_NAME}</a>
        <span>{page.area ?? 'store admin (sandbox)'}</span>
      </header>
      <main class="sheet">{page.body}</main>
    </PageShell>,
    { status: page.status ?? 200, policy: SANDBOX_POLICY },
  );
}

/** The field name of the sandbox forms' CSRF token. */
export const CSRF_FIELD = 'csrf_token';

const Hidden = ({ name, value }: { name: string; value: string }) => <input type="hidden" name={name} value={value} />;
const storeAddress = (domain: string) => `/sandbox/stores/${encodeURIComponent(domain)}`;

export function noSuchStorePage(raw: string): SandboxPage {
  return {
    title: 'No such store',
    status: 404,
    body: (
      <>
        <h1>No such store</h1>
        <p>“{raw}” is not a store domain. Store domains look like shop.example.</p>
      </>
    ),
  };
}

export function messagePage(title: string, heading: string, text: ComponentChildren, status?: number): SandboxPage {
  return {
    title,
    ...(status === undefined ? {} : { status }),
    body: (
      <>
        <h1>{heading}</h1>
        {text !== undefined && <p>{text}</p>}
      </>
    ),
  };
}

export const formExpiredPage: SandboxPage = messagePage(
  'Please try again',
  'Please try again',
  'This form has expired. Go back, reload the page and try again.',
  403,
);

export function ownerOnlyPage(domain: string): SandboxPage {
  return messagePage(
    'Sign in first',
    'Sign in first',
    <>
      Only the store's owner, signed in, can do this. <a href={`${storePath(domain)}/sign-in`}>Sign in</a>.
    </>,
    403,
  );
}

export const damagedLinkPage: SandboxPage = messagePage('Damaged link', 'This link is damaged', 'Open it again from the plugin.', 400);

export function storesPage(stores: Awaited<ReturnType<typeof dal.listStores>>): SandboxPage {
  return {
    title: 'Stores',
    body: (
      <>
        <h1>Sandbox stores</h1>
        <p>Every domain is a store here: its catalog and order history are made up the first time you open it, the same every time.</p>
        <p>
          A store's admin is its owner's. The first visitor of a made-up store sets up its owner sign-in; a store whose brand is already in
          the network gets its sign-in from the support team.
        </p>
        <form method="get" action="/sandbox/open" class="row">
          <label for="domain">Store domain</label>
          <input id="domain" name="domain" required placeholder="cozy-candles.example" />
          <button type="submit">Open store admin</button>
        </form>
        <p class="muted">
          Prefixes pick a case: <code>new-</code> too few orders, <code>noimages-</code> no product images, <code>slow-</code>
          {' slow setup, '}
          <code>promo-</code> an existing 15% welcome discount.
        </p>
        {stores.length > 0 && (
          <>
            <h2>Recently opened</h2>
            <ul class="stores">
              {stores.map((store) => (
                <li>
                  <a href={storeAddress(store.domain)}>{store.business_name}</a>{' '}
                  <span class="muted">
                    {store.domain} · app {store.app_status.replace('_', ' ')}
                    {store.plan_approved_at ? ', plan approved' : ''}
                  </span>
                </li>
              ))}
            </ul>
          </>
        )}
      </>
    ),
  };
}

export interface StoreAdmin {
  store: dal.SandboxStoreRow;
  domain: string;
  csrfToken: string;
  products: Awaited<ReturnType<typeof dal.listProducts>>;
  orders: Awaited<ReturnType<typeof dal.recentOrders>>;
  orderCount: number;
  codes: Awaited<ReturnType<typeof dal.listDiscountCodes>>;
}

export function storeAdminPage({ store, domain, csrfToken, products, orders, orderCount, codes }: StoreAdmin): SandboxPage {
  const path = storeAddress(domain);
  const csrf = <Hidden name={CSRF_FIELD} value={csrfToken} />;
  return {
    title: store.businessName,
    body: (
      <>
        <h1>{store.businessName}</h1>
        <p class="muted">
          {domain} · {store.category ?? ''} · {store.country ?? ''}
        </p>
        <h2>{APP_NAME} app</h2>
        <p>
          {store.appStatus === 'installed' ? (
            store.planApprovedAt ? (
              'Installed, plan approved'
            ) : (
              <>
                Installed, plan not approved — <a href={`${path}/plan`}>approve the plan</a>
              </>
            )
          ) : (
            <>
              {store.appStatus === 'uninstalled' ? 'Uninstalled' : 'Not installed'} — <a href={`${path}/install`}>install {APP_NAME}</a>
            </>
          )}
        </p>
        {store.appStatus === 'installed' && store.ordersWebhookSince && (
          <p>
            Orders go to {APP_NAME}'s order webhook since {store.ordersWebhookSince.toISOString().slice(0, 10)}.
          </p>
        )}
        <div class="row">
          {store.appStatus === 'installed' && (
            <form method="post" action={`${path}/uninstall`}>
              {csrf}
              <button type="submit" class="secondary">
                Uninstall {APP_NAME}
              </button>
            </form>
          )}
          <form method="post" action={`${path}/close-campaign`}>
            {csrf}
            <button type="submit" class="secondary">
              Close cross-promotion campaign
            </button>
          </form>
        </div>
        {store.welcomeDiscountPercent ? <p>This store already gives new customers {store.welcomeDiscountPercent}% off.</p> : null}
        <h2>Discount codes</h2>
        {codes.length > 0 ? (
          <ul>
            {codes.map((code) => (
              <li>
                <code>{code.code}</code> — {code.percent}% off{code.once_per_customer ? ', once per customer' : ''}
              </li>
            ))}
          </ul>
        ) : (
          <p class="muted">None yet.</p>
        )}
        <h2>Catalog ({products.length} products)</h2>
        <table>
          <thead>
            <tr>
              <th>Image</th>
              <th>Product</th>
              <th>Price</th>
              <th>Status</th>
            </tr>
          </thead>
          <tbody>
            {products.map((product) => (
              <tr>
                <td>
                  {product.image_url ? <img src={product.image_url} alt="" width={40} height={40} /> : <span class="muted">no image</span>}
                </td>
                <td>{product.title}</td>
                <td>{money(product.price_cents)}</td>
                <td>{product.status}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <h2>Orders ({orderCount} in all, latest first)</h2>
        <p>
          <a href={`/sandbox/shop/${encodeURIComponent(domain)}`}>Open the storefront</a> to place an order as a shopper.
        </p>
        {orders.length > 0 ? (
          <table class="stacked">
            <thead>
              <tr>
                <th>Order</th>
                <th>Items</th>
                <th>Total</th>
                <th>Date</th>
                <th>Discount code</th>
                <th>Sent to {APP_NAME}</th>
                <th>Refund or cancel</th>
              </tr>
            </thead>
            <tbody>
              {orders.map((order) => (
                <tr>
                  <td data-label="Order">{order.id}</td>
                  <td data-label="Items">
                    {order.title} × {order.quantity}
                  </td>
                  <td data-label="Total">{money(order.total_cents)}</td>
                  <td data-label="Date">{order.placed_at.toISOString().slice(0, 10)}</td>
                  <td data-label="Discount code">{order.discount_code ? <code>{order.discount_code}</code> : ''}</td>
                  <td data-label={`Sent to ${APP_NAME}`}>{order.webhook_status === null ? '' : `HTTP ${order.webhook_status}`}</td>
                  <td>
                    {order.cancelled_at ? (
                      'Cancelled'
                    ) : (
                      <>
                        {order.refunded_cents > 0 ? <p>Refunded {money(order.refunded_cents)}</p> : null}
                        {order.refunded_cents < order.total_cents ? (
                          <>
                            <form method="post" action={`/sandbox/stores/${encodeURIComponent(domain)}/refund`} class="inline-form">
                              {csrf}
                              <Hidden name="order" value={order.id} />
                              <label>
                                Amount ($)
                                <input
                                  name="amount"
                                  inputMode="decimal"
                                  size={7}
                                  required
                                  pattern={REFUND_AMOUNT.source.slice(1, -1)}
                                  title="An amount such as 12.50"
                                  aria-label={`Refund amount for ${order.id}`}
                                  // The whole remaining amount unless the owner types a part of it.
                                  value={((order.total_cents - order.refunded_cents) / 100).toFixed(2)}
                                />
                              </label>
                              <button type="submit">Refund</button>
                            </form>
                            <form method="post" action={`/sandbox/stores/${encodeURIComponent(domain)}/cancel`}>
                              {csrf}
                              <Hidden name="order" value={order.id} />
                              <button type="submit" aria-label={`Cancel order ${order.id}`}>
                                Cancel
                              </button>
                            </form>
                          </>
                        ) : null}
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : (
          <p class="muted">No orders yet.</p>
        )}
      </>
    ),
  };
}

/** What an action form carries on: where to return to, the plugin's state, the CSRF token. */
export interface Carried {
  returnTo: string | null;
  state: string | null;
  csrfToken: string;
}

function CarriedFields({ carried }: { carried: Carried }): VNode {
  return (
    <>
      <Hidden name="return" value={carried.returnTo ?? ''} />
      {carried.state && <Hidden name="state" value={carried.state} />}
      <Hidden name={CSRF_FIELD} value={carried.csrfToken} />
    </>
  );
}

/** After an action: on through the return flow, or where to go from here. */
function Done({ what, returnTo, domain }: { what: string; returnTo: string | null; domain: string }): VNode {
  return (
    <>
      <h1>{what}</h1>
      {returnTo ? (
        <p>
          <a class="button" href={returnTo}>
            Continue
          </a>
        </p>
      ) : (
        <p>Go back to the tab where you started: the plugin continues as soon as you return to it. You can close this tab.</p>
      )}
      <p>
        <a href={storeAddress(domain)}>Open the store admin</a>
      </p>
    </>
  );
}

export function donePage(what: string, domain: string): SandboxPage {
  return { title: what, body: <Done what={what} returnTo={null} domain={domain} /> };
}

/**
 * On a plugin's link whose action is done already: the owner still confirms the plugin with a
 * click (a form), never by opening a link, which another site could make their browser do.
 */
export function alreadyDonePage(title: string, what: string, domain: string, carried: Carried): SandboxPage {
  return {
    title,
    body: (
      <>
        <Done what={what} returnTo={carried.returnTo} domain={domain} />
        {carried.state && (
          <form method="post" action={`${storeAddress(domain)}/confirm`}>
            <CarriedFields carried={carried} />
            <p>Let the {APP_NAME} plugin you came from turn cross-promotion on or off for this store during the next hour?</p>
            <button type="submit">Confirm</button>
          </form>
        )}
      </>
    ),
  };
}

export function installPage(store: dal.SandboxStoreRow, carried: Carried): SandboxPage {
  return {
    title: `Install ${APP_NAME}`,
    body: (
      <>
        <h1>
          Install {APP_NAME} on {store.businessName}?
        </h1>
        <p>{APP_NAME} will be able to:</p>
        <ul>
          <li>read your products and their images</li>
          <li>read how many orders each product has (no customer details)</li>
          <li>create discount codes</li>
        </ul>
        <form method="post">
          <CarriedFields carried={carried} />
          <button type="submit">Install app</button>
        </form>
      </>
    ),
  };
}

/** The plan page of a store without the app: a link to install it, carrying the plugin's return address and state. */
export function installFirstPage(domain: string, query: string): SandboxPage {
  return {
    title: 'Install first',
    status: 409,
    body: (
      <>
        <h1>Install {APP_NAME} first</h1>
        <p>
          <a href={`${storeAddress(domain)}/install${query ? `?${query}` : ''}`}>Install the app</a>, then approve its plan.
        </p>
      </>
    ),
  };
}

export const planNeedsInstallPage: SandboxPage = messagePage(
  'Install first',
  `Install ${APP_NAME} first`,
  'The plan can only be approved once the app is installed.',
  409,
);

export function planPage(carried: Carried, approvedAt: Date | null): SandboxPage {
  return {
    title: 'Approve plan',
    body: (
      <>
        <h1>Approve the {APP_NAME} plan</h1>
        {approvedAt && (
          <p role="status">
            The plan is already approved (since {approvedAt.toISOString().slice(0, 10)}). Approving it again lets {APP_NAME} finish setting
            up your store if it has not yet.
          </p>
        )}
        <dl class="plan">
          <dt>Monthly fee</dt>
          <dd>None</dd>
          <dt>Usage charge</dt>
          <dd>A small share of the first order of each new customer a partner brand refers</dd>
        </dl>
        <form method="post">
          <CarriedFields carried={carried} />
          <button type="submit">Approve plan</button>
        </form>
      </>
    ),
  };
}

export function confirmPluginPage(store: dal.SandboxStoreRow, domain: string, carried: Carried): SandboxPage {
  return {
    title: `Confirm ${APP_NAME}`,
    body: (
      <>
        <h1>
          Let the {APP_NAME} plugin act for {store.businessName}?
        </h1>
        <p>
          You opened this page from the {APP_NAME} plugin. Confirming lets the plugin in the window where you opened it turn cross-promotion
          on or off for {domain} during the next hour. Confirm only if you opened it yourself, just now.
        </p>
        <form method="post">
          <CarriedFields carried={carried} />
          <button type="submit">Confirm</button>
        </form>
      </>
    ),
  };
}

/** The store's sign-in when support has to set it up (the brand is in the network and the store has no owner). */
export function ownerFromSupportPage(storeName: string, text: string, problem: { status: number } | undefined): SandboxPage {
  return {
    title: `Sign in to ${storeName}`,
    status: problem?.status ?? 200,
    body: (
      <>
        <h1>This store has no owner sign-in yet</h1>
        <p role={problem ? 'alert' : 'status'}>{text}</p>
      </>
    ),
  };
}

export interface OwnerSignInForm {
  storeName: string;
  domain: string;
  /** Whether the store has an owner already (sign in), or the form sets one up. */
  hasOwner: boolean;
  next: string;
  csrfToken: string;
  problem?: { status: number; text: string };
}

export function ownerSignInPage({ storeName, domain, hasOwner, next, csrfToken, problem }: OwnerSignInForm): SandboxPage {
  const heading = hasOwner ? `Sign in to ${storeName}` : `Set up the owner sign-in of ${storeName}`;
  return {
    title: heading,
    status: problem?.status ?? 200,
    body: (
      <>
        <h1>{heading}</h1>
        {hasOwner ? (
          <p>Sign in as the owner of {domain}.</p>
        ) : (
          <p class="muted">
            In this sandbox a store is made up the first time it is used, so {domain} has no owner yet: the email and password you choose
            become its owner sign-in.
          </p>
        )}
        {problem && (
          <p role="alert" class="error">
            {problem.text}
          </p>
        )}
        <form method="post" action={`${storePath(domain)}/sign-in`}>
          <Hidden name={CSRF_FIELD} value={csrfToken} />
          <Hidden name="next" value={next} />
          <div class="row">
            <label for="email">Email</label>
            <input id="email" name="email" type="email" autocomplete="username" required />
          </div>
          <div class="row">
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete={hasOwner ? 'current-password' : 'new-password'} required />
          </div>
          <button type="submit">{hasOwner ? 'Sign in' : 'Create owner sign-in'}</button>
        </form>
      </>
    ),
  };
}

export const noSuchRequestPage: SandboxPage = messagePage(
  'No such request',
  'No such request',
  'Nobody asked to act for this store with this link.',
  404,
);

export const chooseDecisionPage: SandboxPage = messagePage('Choose', 'Choose Confirm or Decline', undefined, 400);

export interface OwnershipRequest {
  requestedBy: string;
  status: string;
  /** The service's own page the owner continues to. */
  continueTo: string;
}

export function ownershipAnsweredPage(storeName: string, request: OwnershipRequest): SandboxPage {
  return {
    title: 'Answered',
    body: (
      <>
        <h1>You {request.status} this request</h1>
        <p>
          {request.requestedBy} {request.status === 'confirmed' ? 'may now act for' : 'does not act for'} {storeName} on {APP_NAME}.
        </p>
        <p>
          <a class="button" href={request.continueTo}>
            Continue to {APP_NAME}
          </a>
        </p>
      </>
    ),
  };
}

export function ownershipQuestionPage(storeName: string, domain: string, request: OwnershipRequest, csrfToken: string): SandboxPage {
  return {
    title: 'Confirm store access',
    body: (
      <>
        <h1>
          Does {request.requestedBy} act for {storeName}?
        </h1>
        <p>
          {request.requestedBy} signed up on {APP_NAME} for {domain}. Confirm only if this is you or someone you trust: they will manage the
          store's partnerships, campaigns, offer and API keys.
        </p>
        <form method="post" class="row">
          <Hidden name={CSRF_FIELD} value={csrfToken} />
          <button type="submit" name="decision" value="confirm">
            Confirm
          </button>
          <button type="submit" name="decision" value="decline" class="secondary">
            Decline
          </button>
        </form>
      </>
    ),
  };
}

export function storeNotOpenedPage(domain: string): SandboxPage {
  return messagePage(
    'No such store',
    'No such store',
    <>
      Nobody has opened {domain} yet. <a href={`/sandbox/shop/${encodeURIComponent(domain)}`}>Open its storefront</a> to order.
    </>,
    404,
  );
}

export interface Storefront {
  store: dal.SandboxStoreRow;
  domain: string;
  products: CatalogProduct[];
  /** The discount code the shopper brought or typed, when the store has it. */
  code: { code: string; percent: number } | undefined;
  /** What the discount field shows. */
  typed: string;
  /** The referral token the shopper came with, carried to checkout. */
  ref: string;
  problem?: string;
}

export function storefrontPage({ store, domain, products, code, typed, ref, problem }: Storefront, maxQuantity: number): SandboxPage {
  return {
    title: store.businessName,
    area: `${store.businessName} storefront (sandbox)`,
    status: problem ? 400 : 200,
    body: (
      <>
        <h1>{store.businessName}</h1>
        <p class="muted">{store.tagline ?? ''}</p>
        {code && (
          <p role="status" class="applied">
            Discount <code>{code.code}</code> applied: {code.percent}% off your order.
          </p>
        )}
        {problem && (
          <p role="alert" class="error">
            {problem}
          </p>
        )}
        <table>
          <caption class="muted">Products</caption>
          <thead>
            <tr>
              <th>Image</th>
              <th>Product</th>
              <th>Price</th>
              {code && <th>With your discount</th>}
            </tr>
          </thead>
          <tbody>
            {products.map((product) => (
              <tr>
                <td>{product.imageUrl ? <img src={product.imageUrl} alt="" width={48} height={48} /> : ''}</td>
                <td>{product.title}</td>
                <td>{money(product.priceCents)}</td>
                {code && <td>{money(discountedCents(product.priceCents, code.percent))}</td>}
              </tr>
            ))}
          </tbody>
        </table>
        <h2>Checkout</h2>
        <form method="post" action={`/sandbox/shop/${encodeURIComponent(domain)}/checkout`}>
          <Hidden name="ref" value={ref} />
          <div class="row">
            <label for="product">Product</label>
            <select id="product" name="productId">
              {products.map((product) => (
                <option value={product.id}>
                  {product.title} ({money(product.priceCents)})
                </option>
              ))}
            </select>
          </div>
          <div class="row">
            <label for="quantity">Quantity</label>
            <input id="quantity" name="quantity" type="number" min="1" max={String(maxQuantity)} value="1" required />
          </div>
          <div class="row">
            <label for="email">Your email</label>
            <input id="email" name="email" type="email" autocomplete="email" required />
          </div>
          <div class="row">
            <label for="discount">Discount code</label>
            <input id="discount" name="discount" value={code?.code ?? typed} />
          </div>
          <button type="submit">Place order</button>
        </form>
      </>
    ),
  };
}

export interface PlacedOrder {
  orderId: string;
  totalCents: number;
  discountPercent: number | null;
  /** What became of the order's delivery to the service, in words. */
  delivery: string;
}

export function thankYouPage(domain: string, order: PlacedOrder): SandboxPage {
  return {
    title: 'Thank you',
    area: 'storefront (sandbox)',
    status: 201,
    body: (
      <>
        <h1>Thank you for your order</h1>
        <dl class="plan">
          <dt>Order</dt>
          <dd>{order.orderId}</dd>
          <dt>Total</dt>
          <dd>{money(order.totalCents)}</dd>
          {order.discountPercent ? (
            <>
              <dt>Discount</dt>
              <dd>{order.discountPercent}% off</dd>
            </>
          ) : null}
          <dt>Sandbox delivery</dt>
          <dd data-testid="delivery">{order.delivery}</dd>
        </dl>
        <p>
          <a href={`/sandbox/shop/${encodeURIComponent(domain)}`}>Back to the store</a>
        </p>
      </>
    ),
  };
}
