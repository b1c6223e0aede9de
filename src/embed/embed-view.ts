import type { ActionLink, EmbedBoot as LoaderEmbedBoot, EmbedState as StageState } from './embed-contract.js';

/**
 * What the embed app is told about a store and what its page boots with: the shapes of
 * src/embed/embed-contract.ts, plus what acting for the store needs (docs/plugin.md, "Acting for the
 * store"). Kept apart on purpose: the published loader v2.0.0 is built from embed-contract.ts, and esbuild
 * names its minified symbols by the characters of the files it bundles, so any change to that
 * file's code (types included) changes the loader's bytes.
 */

/** The consent screen, with where the owner confirms when the app holds no store token (null without a challenge). */
type ConsentState = Extract<StageState, { stage: 'consent' }> & { confirm: ActionLink | null };

/**
 * The live screen, with where the owner confirms to see the store's billing (CapRaiseView) when the
 * app holds no store token (null without a challenge): the state itself holds nothing of it.
 */
type LiveState = Extract<StageState, { stage: 'live' }> & { confirm: ActionLink | null };

/**
 * The commerce platform asks the store's staff to approve a higher capped amount (Shopify, once the
 * balance nears the cap or a commission went over it): commissions over the cap are held until then.
 */
export interface CapRaiseView {
  /** The commerce platform's name, as its owner knows it ("Shopify"). */
  platformName: string;
  /** The platform's own page (https) where the store's staff approve it, signed in there. */
  confirmationUrl: string;
  /** The capped amount asked for, every 30 days, in minor units of `currency` (ISO 4217). */
  cappedMinor: number;
  currency: string;
  /** The commissions held until it is approved, per currency (minor units); empty while none is held yet. */
  held: Array<{ amountMinor: number; currency: string }>;
}

/**
 * A store's stage or message: what anyone who can name the store may read, a shopper included
 * (docs/security.md, "A store's billing is its merchant's"). No money and no approval link: those
 * are in StoreBilling, for the store token only.
 */
export type EmbedState =
  | Exclude<StageState, { stage: 'consent' } | { stage: 'live' } | { notice: 'turned_off' }>
  | ConsentState
  | LiveState
  | { kind: 'notice'; notice: 'turned_off'; confirm: ActionLink | null }
  /** The host has no commerce platform to install the app into (a prod host until one is configured). */
  | { kind: 'notice'; notice: 'no_commerce_platform' };

/** The store's billing, answered to the embed app holding the store token (POST /plugin/v2/billing). */
export interface StoreBilling {
  /** Set while the store's commerce platform waits for its staff to approve a higher capped amount; null otherwise. */
  capRaise: CapRaiseView | null;
}

/** The state at the commerce platform's own app home, whose browser came back from the platform as the store's staff. */
export type HomeState = EmbedState & {
  /** Present while the store's commerce platform waits for its staff to approve a higher capped amount. */
  capRaise?: CapRaiseView;
};

type AppBoot = Omit<Extract<LoaderEmbedBoot, { page: 'app' }>, 'state'> & {
  /** Null when the store's state could not be read: the app shows "Could not reach the service". */
  state: EmbedState | null;
  /**
   * This page's secret and its hash (the state of its commerce-platform links): once the store's
   * owner confirms there, the app trades the secret for a store-bound token.
   */
  proof: { secret: string; challenge: string };
};

export type EmbedBoot = Exclude<LoaderEmbedBoot, { page: 'app' }> | AppBoot;
