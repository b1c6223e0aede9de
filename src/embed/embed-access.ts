import type { PluginPlatform } from './dal.js';
import type { EmbedBoot, EmbedState } from './embed-view.js';
import type { MerchantProof } from './merchant-tokens.js';

export interface EmbedRequest {
  platformId: string;
  domain: string;
  mode: 'page' | 'drawer';
  /** The host page's origin from the Referer the browser sent; undefined when it sent none. */
  hostOrigin: string | undefined;
  /** Origins the loader reports around the host page: only ever a reason to refuse. */
  hintedAncestors: string[];
  /** False when the browser said the page is not being loaded into a frame (Sec-Fetch-Dest). */
  framed: boolean;
  /** The app page's secret and challenge; only the app page carries them. */
  proof: MerchantProof;
}

export interface EmbedAccessDeps {
  findPlatform: (platformId: string) => Promise<PluginPlatform | undefined>;
  state: (platform: PluginPlatform, domain: string, challenge: string) => Promise<EmbedState>;
  recheckMs: number;
  onError: (error: unknown, what: string) => void;
}

export interface EmbedPageDecision {
  boot: EmbedBoot;
  /** The page's frame-ancestors: the approved origins for the app, the asking origins otherwise; none may frame it when empty. */
  frameAncestors: string[];
}

/**
 * Which embed page a request gets (SPEC 4.7 rule 5, DESIGN 4 "Approved origins"). A store's
 * state goes only into the app page, and only when the browser-sent host origin and every origin
 * the loader reports around it are approved; that page may then be framed by approved origins
 * only, which the browser checks against every ancestor. Every other page holds a fixed message
 * and may be framed by the origins that asked for it, so the merchant sees the message rather
 * than the browser's blocked-frame page.
 */
export async function decideEmbedPage(request: EmbedRequest, deps: EmbedAccessDeps): Promise<EmbedPageDecision> {
  const { platformId, domain, mode, hostOrigin, hintedAncestors } = request;
  const asking = [...new Set([hostOrigin, ...hintedAncestors].filter((origin): origin is string => origin !== undefined))];
  const messageOnly = (boot: Extract<EmbedBoot, { page: 'refused' | 'notice' }>): EmbedPageDecision => ({
    boot,
    frameAncestors: asking,
  });
  const base = { platformId, domain, mode, parentOrigin: hostOrigin ?? hintedAncestors[0] ?? null };

  let platform: PluginPlatform | undefined;
  try {
    platform = await deps.findPlatform(platformId);
  } catch (error) {
    deps.onError(error, 'platform lookup for the embed page');
    return messageOnly({ ...base, page: 'notice', notice: 'unreachable' });
  }
  if (!platform?.active || platform.offerTypes.length === 0) {
    return messageOnly({ ...base, page: 'notice', notice: 'unavailable' });
  }
  const approvedOrigins = platform.approvedOrigins;
  const approved = request.framed && asking.every((origin) => approvedOrigins.includes(origin));
  if (!approved || hostOrigin === undefined) return messageOnly({ ...base, page: 'refused' });

  let state: EmbedState | null = null;
  try {
    state = await deps.state(platform, domain, request.proof.challenge);
  } catch (error) {
    deps.onError(error, 'store state for the embed page');
  }
  return {
    boot: { ...base, parentOrigin: hostOrigin, page: 'app', state, recheckMs: deps.recheckMs, proof: request.proof },
    frameAncestors: approvedOrigins,
  };
}
