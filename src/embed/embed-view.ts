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

export type EmbedState =
  | Exclude<StageState, { stage: 'consent' } | { notice: 'turned_off' }>
  | ConsentState
  | { kind: 'notice'; notice: 'turned_off'; confirm: ActionLink | null }
  /** The host has no commerce platform to install the app into (a prod host until one is configured). */
  | { kind: 'notice'; notice: 'no_commerce_platform' };

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
