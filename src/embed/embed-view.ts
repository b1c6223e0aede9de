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

export type EmbedState = (
  | Exclude<StageState, { stage: 'consent' } | { notice: 'turned_off' }>
  | ConsentState
  | { kind: 'notice'; notice: 'turned_off'; confirm: ActionLink | null }
  /** The host has no commerce platform to install the app into (a prod host until one is configured). */
  | { kind: 'notice'; notice: 'no_commerce_platform' }
) & {
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
