import type { AppInstallation } from '../commerce/adapter.js';
import type { Notice, ProgressStep, Stage } from './embed-contract.js';

/** Everything the stage depends on, read fresh at every load (SPEC 3.4). */
export interface StoreFacts {
  platform: { active: boolean; offerTypes: string[] } | undefined;
  installation: AppInstallation;
  planApproved: boolean;
  /** Read from the store only once the app is installed: before that the service has no access. */
  eligibility: { orders: number; activeProductsWithImages: number } | undefined;
  setup: { step: 'import' | 'offer' | 'match' | 'done'; startedAt: Date } | undefined;
  consented: boolean;
  turnedOff: boolean;
  /** The store's brand already has a live offer: it turned cross-promotion on through another app. */
  liveElsewhere: boolean;
}

export interface StagePolicy {
  minOrders: number;
  delayedAfterMs: number;
}

export type Decision =
  | { kind: 'stage'; stage: Stage }
  | { kind: 'notice'; notice: Exclude<Notice, 'unreachable' | 'not_eligible'> }
  | { kind: 'notice'; notice: 'not_eligible'; reasons: string[] }
  /** The host has no commerce platform (decided before the facts above, which come from one). */
  | { kind: 'notice'; notice: 'no_commerce_platform' };

export function eligibilityProblems(eligibility: { orders: number; activeProductsWithImages: number }, minOrders: number): string[] {
  const reasons: string[] = [];
  if (eligibility.orders < minOrders) {
    reasons.push(`The store needs at least ${minOrders} orders; it has ${eligibility.orders} so far.`);
  }
  if (eligibility.activeProductsWithImages < 1) {
    reasons.push('The store needs at least one active product with an image.');
  }
  return reasons;
}

/**
 * Works out the stage, or the message shown instead (SPEC 3.4 and 6.3). Messages win over
 * stages; a store already live through another app is live at load with no second consent.
 * Eligibility is checked once the app is installed and until the merchant has consented: a live
 * store is not switched off because its order count was read differently later.
 */
export function decideStage(facts: StoreFacts, policy: StagePolicy, now: Date): Decision {
  const platform = facts.platform;
  if (!platform?.active || platform.offerTypes.length === 0) return { kind: 'notice', notice: 'unavailable' };
  if (facts.installation === 'uninstalled') return { kind: 'notice', notice: 'not_installed' };
  if (facts.turnedOff) return { kind: 'notice', notice: 'turned_off' };
  if (facts.liveElsewhere) return { kind: 'stage', stage: 'live' };
  if (facts.installation === 'not_installed') return { kind: 'stage', stage: 'install' };
  if (!facts.consented && facts.eligibility) {
    const reasons = eligibilityProblems(facts.eligibility, policy.minOrders);
    if (reasons.length > 0) return { kind: 'notice', notice: 'not_eligible', reasons };
  }
  // Approved at the platform but never set up here (a store the platform made before the owner came,
  // or a parked setup): only the owner's approval starts setup, so they are asked for it.
  if (!facts.planApproved || !facts.setup) return { kind: 'stage', stage: 'plan' };
  if (facts.setup.step !== 'done') {
    const startedAt = facts.setup.startedAt;
    return { kind: 'stage', stage: now.getTime() - startedAt.getTime() >= policy.delayedAfterMs ? 'delayed' : 'setting_up' };
  }
  return { kind: 'stage', stage: facts.consented ? 'live' : 'consent' };
}

const STEP_LABELS: Array<[ProgressStep['key'], string]> = [
  ['import', 'Importing your store'],
  ['offer', 'Creating your offer from your best sellers'],
  ['match', 'Finding brands that fit yours'],
];

/** The progress list of the setting_up and delayed screens (SPEC 6.2). */
export function progressSteps(step: 'import' | 'offer' | 'match' | 'done' | undefined): ProgressStep[] {
  const current = STEP_LABELS.findIndex(([key]) => key === (step ?? 'import'));
  return STEP_LABELS.map(([key, label], index) => ({
    key,
    label,
    status: step === 'done' || index < current ? 'done' : index === current ? 'active' : 'pending',
  }));
}
