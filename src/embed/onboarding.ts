import type { Config } from '../config.js';
import type { Db } from '../db/database.js';
import type { InvalidationBus } from '../cache/invalidation.js';
import type { CommerceAdapter, CommerceEvent, StoreStatus } from '../commerce/adapter.js';
import { StoreDomainCache, type StoreDomainLookup } from '../companies/service.js';
import { ApiError, badRequest } from '../http/errors.js';
import { discountCodeFor, showOffersOfReturningStore } from '../offers/service.js';
import * as dal from './dal.js';
import { DISCOUNT_CHOICES, type ActionLink } from './embed-contract.js';
import type { CapRaiseView, EmbedState, HomeState, StoreBilling } from './embed-view.js';
import { consentToOffer, showStoreOffer, storeLeft } from './merchant-stores.js';
import { recordConfirmation } from './merchant-tokens.js';
import { decideStage, progressSteps, type Decision, type StoreFacts } from './stage.js';

/** Whether a link out of the service goes to an https page. */
const isHttpsUrl = (value: string) => {
  try {
    return new URL(value).protocol === 'https:';
  } catch {
    return false;
  }
};

/** What a stage offers the merchant to do: the plugin links to the commerce platform; its own app home has its own forms. */
export interface StageActions {
  link(action: 'install' | 'plan'): Promise<ActionLink>;
  /** Where the owner confirms that the asking app acts for the store; null when nobody needs to. */
  confirm(): ActionLink | null;
}

/** At the commerce platform's own app home no tech platform asks: every offer type is welcome, so no store is unavailable. */
const COMMERCE_PLATFORM_HOME: StoreFacts['platform'] = { active: true, offerTypes: ['any'] };

export interface OnboardingDeps {
  db: Db;
  /** The commerce platform this host has; null on a host with none (prod until one is configured). */
  adapter: CommerceAdapter | null;
  bus: InvalidationBus;
  settings: Config['plugin'];
  /** Wakes the setup worker so a new job starts now rather than at the next poll. */
  nudgeWorker: () => void;
  /** How a domain the plugin is given leads to its store; by default cached in process, dropped by the bus. */
  storeDomains?: StoreDomainLookup;
  /**
   * Where the plugin's install step sends the merchant of a store whose platform installs apps from
   * a listing of its own (Shopify's App Store), or null: the platform's install link (the sandbox's).
   */
  appListingUrl?: (domain: string) => string | null;
}

/** How often the embed app polls while setup runs. */
export const SETUP_POLL_AFTER_MS = 1500;

export const TERMS_URL = '/plugin/legal/terms';
export const PRIVACY_URL = '/plugin/legal/privacy';
/** Where a live merchant manages partnerships and campaigns: the brand dashboard. */
export const MANAGE_URL = '/dashboard';

/**
 * The return flow of SPEC 4.7 holds: support has the plugin page (on an approved origin) and the
 * platform synced this store, by its own domain or a host linked to it (a platform knows a Shopify
 * store by `brand.com` as often as by `brand.myshopify.com`).
 */
async function returnFlowHolds(db: Db, storeDomains: StoreDomainLookup, platform: dal.PluginPlatform, domain: string): Promise<boolean> {
  if (!platform.pluginPageUrl) return false;
  let origin: string;
  try {
    origin = new URL(platform.pluginPageUrl).origin;
  } catch {
    return false;
  }
  if (!platform.approvedOrigins.includes(origin)) return false;
  return dal.isBrandSynced(db, platform.id, await storeDomains.domainsOf(domain));
}

/** Merchant onboarding through the plugin: the stage of a store and the merchant's actions. */
export class Onboarding {
  private readonly storeDomains: StoreDomainLookup;

  constructor(private readonly deps: OnboardingDeps) {
    this.storeDomains = deps.storeDomains ?? new StoreDomainCache(deps.db, deps.bus);
  }

  /**
   * The store a domain the plugin was given names: a host linked to a store (a Shopify store's own
   * domain, `brand.com`) is that store (`brand.myshopify.com`), which everything after goes by.
   * Asked on every plugin call: answered from memory (StoreDomainCache, docs/decisions.md).
   */
  storeOf(domain: string): Promise<string> {
    return this.storeDomains.storeOf(domain);
  }

  /** Whether the return flow of SPEC 4.7 holds for this store (returnFlowHolds above), its domains read through the cache. */
  returnFlowHolds(platform: dal.PluginPlatform, domain: string): Promise<boolean> {
    return returnFlowHolds(this.deps.db, this.storeDomains, platform, domain);
  }

  /** The platform the plugin is embedded for, with what the embed page checks (approved origins, offer types). */
  platform(platformId: string): Promise<dal.PluginPlatform | undefined> {
    return dal.findPluginPlatform(this.deps.db, platformId);
  }

  /**
   * The store's stage or message. `challenge` (the hash of the embed app's secret) rides as the
   * state of the commerce-platform links, so the owner's action there lets that app act for the store.
   * Anyone who can name the store may ask (the embed page, its state call): nothing of the store's
   * billing is in it, that is billing()'s, for the store token.
   */
  async state(
    platform: dal.PluginPlatform | undefined,
    domain: string,
    challenge: string | null = null,
    now = new Date(),
  ): Promise<EmbedState> {
    const { decision, record } = await this.decide(platform, domain, now);
    return this.describe(decision, record, domain, this.pluginActions(platform!, domain, challenge));
  }

  /**
   * The store's billing, for the embed app holding the store token (the routes check it): the cap
   * raise its commerce platform waits for, with the commissions held until then and the page to approve it.
   */
  async billing(domain: string): Promise<StoreBilling> {
    const status = this.deps.adapter ? await this.deps.adapter.status(domain) : undefined;
    return { capRaise: await this.capRaise(domain, status) };
  }

  /**
   * The store's stage at the commerce platform's own app home, where its owner came without a tech
   * platform's plugin: the same stages and rules, with the home's own actions.
   */
  async homeState(domain: string, actions: StageActions, now = new Date()): Promise<HomeState> {
    const { decision, record, status } = await this.decide(COMMERCE_PLATFORM_HOME, domain, now);
    const state = await this.describe(decision, record, domain, actions);
    const capRaise = await this.capRaise(domain, status);
    return capRaise ? { ...state, capRaise } : state;
  }

  /**
   * While the store's commerce platform waits for its staff to approve a higher capped amount
   * (Shopify's cap raise): the commissions held until then and the platform's own page to approve
   * it, for the merchant wherever they are (the plugin with its store token, the app home), as the
   * dashboard and support have it. Only for a store whose app is installed with its plan approved.
   */
  private async capRaise(domain: string, status: StoreStatus | undefined): Promise<CapRaiseView | null> {
    const adapter = this.deps.adapter;
    // The platform's status says whether anything waits, so a store with nothing to approve costs no read more.
    if (!adapter || status?.installation !== 'installed' || !status.planApproved || !status.billingApprovalWaits) return null;
    const approval = await adapter.pendingBillingApproval(domain);
    // A link out of the service goes to the platform's own https page, and nowhere else.
    if (!approval || !isHttpsUrl(approval.confirmationUrl)) return null;
    const { confirmationUrl, cappedMinor, currency, held } = approval;
    return { platformName: adapter.platformNameOf(domain), confirmationUrl, cappedMinor, currency, held };
  }

  private async decide(
    platform: StoreFacts['platform'],
    domain: string,
    now: Date,
  ): Promise<{ decision: Decision; record: dal.StoreRecord | undefined; status?: StoreStatus }> {
    const { db, adapter, settings } = this.deps;
    if (!platform?.active) {
      return { decision: { kind: 'notice', notice: 'unavailable' } as Decision, record: undefined };
    }
    if (!adapter) {
      // No commerce platform to install into: a brand already live elsewhere still shows as live.
      const record = await dal.loadStoreRecord(db, domain);
      const decision: Decision = record.offer?.live ? { kind: 'stage', stage: 'live' } : { kind: 'notice', notice: 'no_commerce_platform' };
      return { decision, record };
    }
    const [status, record] = await Promise.all([adapter.status(domain), dal.loadStoreRecord(db, domain)]);
    const consented = record.merchant?.consentedAt != null;
    const eligibility = status.installation === 'installed' && !consented ? await adapter.eligibility(domain) : undefined;
    // Reading the stage writes nothing: setup is queued (or resumed) only by the owner's plan approval (handleCommerceEvent).
    const setup = record.setup && !record.setup.parked ? record.setup : undefined;
    const decision = decideStage(
      {
        platform,
        installation: status.installation,
        planApproved: status.planApproved,
        eligibility,
        setup,
        consented,
        turnedOff: record.merchant?.turnedOffAt != null,
        liveElsewhere: !consented && record.offer?.live === true,
      },
      { minOrders: settings.storeMinOrders, delayedAfterMs: settings.setupDelayedAfterSeconds * 1000 },
      now,
    );
    return { decision, record, status };
  }

  private async describe(
    decision: Decision,
    record: dal.StoreRecord | undefined,
    domain: string,
    actions: StageActions,
  ): Promise<EmbedState> {
    if (decision.kind === 'notice') {
      switch (decision.notice) {
        case 'not_installed':
          return { kind: 'notice', notice: 'not_installed', reinstall: await actions.link('install') };
        case 'not_eligible':
          return { kind: 'notice', notice: 'not_eligible', reasons: decision.reasons };
        case 'turned_off':
          return { kind: 'notice', notice: 'turned_off', confirm: actions.confirm() };
        default:
          return { kind: 'notice', notice: decision.notice };
      }
    }
    switch (decision.stage) {
      case 'install':
        return { kind: 'stage', stage: 'install', install: await actions.link('install') };
      case 'plan':
        return { kind: 'stage', stage: 'plan', approve: await actions.link('plan') };
      case 'setting_up':
      case 'delayed':
        return { kind: 'stage', stage: decision.stage, steps: progressSteps(record?.setup?.step), pollAfterMs: SETUP_POLL_AFTER_MS };
      case 'consent': {
        const name = record?.business?.name ?? domain;
        return {
          kind: 'stage',
          stage: 'consent',
          preview: {
            businessName: name,
            logoImageUrl: record?.business?.logoImageUrl ?? null,
            tagline: record?.business?.description ?? null,
            bestSellers: (record?.merchant?.bestSellers ?? []).slice(0, 3),
          },
          existingDiscountPercent: record?.merchant?.existingDiscountPercent ?? null,
          choices: [...DISCOUNT_CHOICES],
          termsUrl: TERMS_URL,
          privacyUrl: PRIVACY_URL,
          confirm: actions.confirm(),
        };
      }
      case 'live': {
        const offer = record?.offer;
        return {
          kind: 'stage',
          stage: 'live',
          offer: {
            title: offer?.title ?? record?.business?.name ?? domain,
            subtitle: offer?.subtitle ?? null,
            imageUrl: offer?.imageUrl ?? null,
            discountPercent: offer?.discountPercent ?? null,
            discountCode: offer?.discountCode ?? null,
          },
          manageUrl: MANAGE_URL,
          confirm: actions.confirm(),
        };
      }
    }
  }

  /** The plugin's actions: links to the commerce platform carrying the app page's challenge (only used when the host has one). */
  private pluginActions(platform: dal.PluginPlatform, domain: string, challenge: string | null): StageActions {
    return {
      link: async (action) => {
        const adapter = this.deps.adapter!;
        // Installed from the platform's own listing, which no frame may hold: a new tab, and no challenge rides it. The
        // plugin sees the install on its next look; the plan link's challenge is confirmed on the way (routes.ts of Shopify).
        const listing = action === 'install' ? (this.deps.appListingUrl?.(domain) ?? null) : null;
        if (listing) return { url: listing, sameTab: false };
        const sameTab = await this.returnFlowHolds(platform, domain);
        const returnTo = sameTab ? `/plugin/v2/return?${new URLSearchParams({ platformId: platform.id, domain }).toString()}` : null;
        const link = { returnTo, state: challenge, platformId: platform.id };
        const url = action === 'install' ? adapter.installUrl(domain, link) : adapter.planApprovalUrl(domain, link);
        return { url, sameTab };
      },
      // Where the owner confirms that this app acts for the store: always a new tab, the app that made the challenge must stay.
      confirm: () =>
        challenge ? { url: this.deps.adapter!.merchantConfirmationUrl(domain, challenge, platform.id), sameTab: false } : null,
    };
  }

  /**
   * "Turn on cross-promotions": accepts the terms, creates the store's one discount code (once per
   * customer) through the commerce platform and shows the offer. Only from the consent stage.
   */
  async consent(
    platform: dal.PluginPlatform | undefined,
    domain: string,
    discountPercent: number | undefined,
    now = new Date(),
  ): Promise<EmbedState> {
    await this.acceptTerms(platform, domain, discountPercent, now);
    return this.state(platform, domain, null, now);
  }

  /** The same consent from the commerce platform's own app home. */
  async consentAtHome(domain: string, discountPercent: number | undefined, actions: StageActions, now = new Date()): Promise<HomeState> {
    await this.acceptTerms(COMMERCE_PLATFORM_HOME, domain, discountPercent, now);
    return this.homeState(domain, actions, now);
  }

  /** Consent from the consent stage; a store already live is left as it is. */
  private async acceptTerms(platform: StoreFacts['platform'], domain: string, discountPercent: number | undefined, now: Date) {
    const { decision, record } = await this.decide(platform, domain, now);
    if (decision.kind === 'stage' && decision.stage === 'live') return;
    if (decision.kind !== 'stage' || decision.stage !== 'consent' || !record?.companyId) {
      throw new ApiError(
        409,
        'wrong_stage',
        'cross-promotion can be turned on from the consent stage only; ' +
          `the store is at ${decision.kind === 'stage' ? decision.stage : decision.notice}`,
      );
    }
    const existing = record.merchant?.existingDiscountPercent ?? null;
    let percent: number;
    if (existing !== null) {
      if (discountPercent !== undefined && discountPercent !== existing) {
        throw badRequest(`discountPercent must be ${existing}: the store already gives new customers ${existing}%`);
      }
      percent = existing;
    } else {
      if (discountPercent === undefined) throw badRequest('discountPercent is required: choose 10, 15, 20 or 25');
      percent = discountPercent;
    }
    const code = discountCodeFor(domain, percent);
    // The consent stage is only ever reached through a commerce platform.
    await this.deps.adapter!.createDiscountCode(domain, { code, percent, oncePerCustomer: true });
    const name = record.business?.name ?? domain;
    await consentToOffer(this.deps, domain, record.companyId, { percent, code, title: `${percent}% off your first order at ${name}` }, now);
  }

  /** "Turn cross-promotion back on" after the merchant closed it. */
  async turnOn(platform: dal.PluginPlatform | undefined, domain: string, now = new Date()): Promise<EmbedState> {
    await this.showAgain(platform, domain, now);
    return this.state(platform, domain, null, now);
  }

  /** The same from the commerce platform's own app home. */
  async turnOnAtHome(domain: string, actions: StageActions, now = new Date()): Promise<HomeState> {
    await this.showAgain(COMMERCE_PLATFORM_HOME, domain, now);
    return this.homeState(domain, actions, now);
  }

  private async showAgain(platform: StoreFacts['platform'], domain: string, now: Date): Promise<void> {
    const { decision } = await this.decide(platform, domain, now);
    if (decision.kind !== 'notice' || decision.notice !== 'turned_off') {
      throw new ApiError(409, 'wrong_stage', 'cross-promotion is not turned off for this store');
    }
    await showStoreOffer(this.deps, domain, true, false, now);
  }

  /** The merchant closed their campaign: the offer stops showing until they turn it back on. */
  async turnOff(domain: string, now = new Date()): Promise<void> {
    await showStoreOffer(this.deps, domain, false, true, now);
  }

  /** Webhooks of the commerce platform. */
  async handleCommerceEvent(event: CommerceEvent): Promise<void> {
    const now = new Date();
    if (event.type === 'plan_approved') {
      await dal.ensureSetupJob(this.deps.db, event.domain, now);
      // Back: what the store's leaving hid shows again, whoever turned it on (the plugin, the brand's dashboard).
      await showOffersOfReturningStore(this.deps, event.domain, now);
      // Reinstalled and approved again: the merchant consented before, so the offer shows again. The
      // marked offers above already include it; this also covers a store that left before offers were
      // marked (migration 0041), whose consented offer was hidden without a mark.
      const record = await dal.loadStoreRecord(this.deps.db, event.domain);
      if (record.merchant?.consentedAt && !record.merchant.turnedOffAt) {
        await showStoreOffer(this.deps, event.domain, true, undefined, now);
      }
      this.deps.nudgeWorker();
    } else if (event.type === 'app_uninstalled') {
      await storeLeft(this.deps, event.domain, now);
    } else if (event.type === 'campaign_closed') {
      await this.turnOff(event.domain, now);
    } else if (event.type === 'merchant_confirmed') {
      await recordConfirmation(this.deps.db, event.domain, event.state, now);
    }
  }
}
