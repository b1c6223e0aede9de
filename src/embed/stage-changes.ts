import type { EmbedState } from './embed-view.js';

/** Stores whose last answered stage is remembered; past this the oldest is forgotten (it logs once more). */
const REMEMBERED_STORES = 10_000;

function label(state: EmbedState): string {
  return state.kind === 'stage' ? state.stage : state.notice;
}

/**
 * The embed app asks for a store's stage every few seconds while setup runs; the terminal gets one
 * line when the answer changes, not one per poll. Per process: each instance logs its own first answer.
 */
export class StageChanges {
  private readonly last = new Map<string, string>();

  /** The answered stage or notice, when it differs from this store's previous answer; undefined otherwise. */
  changed(platformId: string, domain: string, state: EmbedState): string | undefined {
    const key = `${platformId} ${domain}`;
    const now = label(state);
    if (this.last.get(key) === now) return undefined;
    this.last.delete(key);
    this.last.set(key, now);
    if (this.last.size > REMEMBERED_STORES) this.last.delete(this.last.keys().next().value!);
    return now;
  }
}
