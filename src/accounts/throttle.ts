/**
 * How sign-in and password reset attempts are held back (OWASP's authentication advice): per
 * account and client address a delay that grows with each failure there and ends with a success
 * there or a password reset, so an attacker's failures never make a person wait at their own
 * address (issue 23); per client address a budget across all accounts, against password spraying
 * and reset floods; per account a budget that every client not known to the account shares, so
 * that guesses from many addresses are bounded too, while a browser that signed in to the account
 * before (a valid device cookie, src/accounts/device-cookies.ts) keeps a budget of its own and
 * still gets in (issue 44). Counted in the database, which every instance shares
 * (docs/decisions.md, "Sign-in throttling").
 */
export const SIGN_IN_THROTTLE = {
  /** Failures on one account that cost nothing: typos. */
  freeFailuresPerAccount: 3,
  /** The wait before the next attempt after the free failures; it doubles with each further failure. */
  firstDelayMs: 1_000,
  /** The longest wait between two attempts on one account. */
  maxDelayMs: 30_000,
  /** How long an account's failures count when no success clears them. */
  accountMemoryMs: 24 * 3600_000,
  /** Failed sign-ins from one address, across all accounts, per window. */
  failuresPerAddress: 50,
  addressWindowMs: 15 * 60_000,
  /**
   * Failed sign-ins to one account, from every client without a trusted device cookie for it, per
   * window: 20 addresses at three free failures each spend it. Above what one address can spend
   * under its own delays in the window (about 20), so a person typing at a new browser is not held
   * out by a lone guesser.
   */
  untrustedFailuresPerAccount: 30,
  untrustedWindowMs: 60 * 60_000,
  /** Failures a trusted device may make on its account per window before it counts as untrusted. */
  failuresPerDevice: 10,
  deviceWindowMs: 60 * 60_000,
} as const;

/** Password reset requests from one address, whatever the email, per window. */
export const RESET_REQUEST_BUDGET = { perAddress: 10, windowMs: 15 * 60_000 } as const;

/** Why an attempt has to wait, and how long (whole seconds, for Retry-After). */
export interface Wait {
  limit: 'account' | 'address' | 'untrusted';
  retryAfterSeconds: number;
}

/** An account's failures from this address since its last success there, and the address's within its window. */
export interface AttemptHistory {
  accountFailures: number;
  latestAccountFailure: Date | null;
  addressAttempts: number;
  oldestAddressAttempt: Date | null;
  /** The account's failures from clients without a trusted device, within their window. */
  untrustedFailures: number;
  oldestUntrustedFailure: Date | null;
  /** The failures of the device this attempt presents (0 without one), within their window. */
  deviceFailures: number;
}

/** The wait an account's next attempt owes after `failures` failures in a row: 0, then 1 s, 2 s, 4 s … 30 s. */
export function accountDelayMs(failures: number): number {
  const { freeFailuresPerAccount, firstDelayMs, maxDelayMs } = SIGN_IN_THROTTLE;
  if (failures < freeFailuresPerAccount) return 0;
  return Math.min(maxDelayMs, firstDelayMs * 2 ** (failures - freeFailuresPerAccount));
}

function waitUntil(limit: Wait['limit'], until: number, now: Date): Wait | null {
  const remainingMs = until - now.getTime();
  return remainingMs > 0 ? { limit, retryAfterSeconds: Math.ceil(remainingMs / 1000) } : null;
}

/** The wait of an address that spent `budget` attempts in a sliding window: until its oldest one leaves it. */
export function addressWait(
  history: Pick<AttemptHistory, 'addressAttempts' | 'oldestAddressAttempt'>,
  budget: number,
  windowMs: number,
  now: Date,
): Wait | null {
  if (history.addressAttempts < budget || !history.oldestAddressAttempt) return null;
  return waitUntil('address', history.oldestAddressAttempt.getTime() + windowMs, now);
}

/** The longest of the waits, or null when none. */
function longest(waits: Array<Wait | null>): Wait | null {
  return waits.reduce<Wait | null>(
    (most, wait) => (wait && (!most || wait.retryAfterSeconds > most.retryAfterSeconds) ? wait : most),
    null,
  );
}

/**
 * Whether a sign-in attempt may go on now, and as which device its failure would count: the device
 * it presents while that device has budget left, else none (untrusted). An untrusted attempt waits
 * for the longest of the account's delay at its address, the address's budget and the account's
 * untrusted budget; a trusted one skips the last.
 */
export function signInTurn(history: AttemptHistory, device: string | null, now: Date): { wait: Wait } | { device: string | null } {
  const trusted = device !== null && history.deviceFailures < SIGN_IN_THROTTLE.failuresPerDevice;
  const account = history.latestAccountFailure
    ? waitUntil('account', history.latestAccountFailure.getTime() + accountDelayMs(history.accountFailures), now)
    : null;
  const address = addressWait(history, SIGN_IN_THROTTLE.failuresPerAddress, SIGN_IN_THROTTLE.addressWindowMs, now);
  const untrusted =
    trusted || history.untrustedFailures < SIGN_IN_THROTTLE.untrustedFailuresPerAccount || !history.oldestUntrustedFailure
      ? null
      : waitUntil('untrusted', history.oldestUntrustedFailure.getTime() + SIGN_IN_THROTTLE.untrustedWindowMs, now);
  const wait = longest([account, address, untrusted]);
  return wait ? { wait } : { device: trusted ? device : null };
}

function inWords(seconds: number): string {
  if (seconds < 60) return `${seconds} second${seconds === 1 ? '' : 's'}`;
  const minutes = Math.ceil(seconds / 60);
  return `${minutes} minute${minutes === 1 ? '' : 's'}`;
}

/**
 * What a person is told while waiting. The same for an email with or without an account, since
 * failures on unknown emails are counted alike.
 */
export function signInWaitMessage(wait: Wait): string {
  const time = inWords(wait.retryAfterSeconds);
  if (wait.limit === 'account') return `Too many failed sign-ins to this account. Try again in ${time}.`;
  if (wait.limit === 'untrusted') {
    return (
      `Too many failed sign-ins to this account from browsers it has not signed in with. Try again in ${time}, ` +
      'or sign in from a browser you have signed in with before.'
    );
  }
  return `Too many failed sign-ins from your network. Try again in ${time}.`;
}

export function resetWaitMessage(wait: Wait): string {
  return `Too many password reset requests from your network. Try again in ${inWords(wait.retryAfterSeconds)}.`;
}
