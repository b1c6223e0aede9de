/**
 * What other folders call of the accounts domain. Its rules live in one file per concern, each over
 * the one dal.ts: sign-up.ts (sign-up, claims of a store, invitations), users.ts (passwords and
 * sign-in), sessions.ts (the session cookie), password-reset.ts, throttle.ts (sign-in failures),
 * device-cookies.ts (browsers an account signed in from) and mail.ts (the outbound mail port); routes.ts and pages.tsx are its HTTP face.
 */
export type { SessionAccount, SessionUser } from './dal.js';
export { actsForBrand, claimantOf, currentAccount, currentUser, endSession, startSession, type Claimant } from './sessions.js';
export { brandOfSignIn, checkSignIn } from './users.js';
export { signInWaitMessage } from './throttle.js';
export { DEVICE_COOKIE, setDeviceCookie } from './device-cookies.js';
export { completePasswordReset, requestPasswordReset } from './password-reset.js';
export {
  checkClaim,
  claimAsksStore,
  claimsAskingStore,
  createInvitation,
  currentClaim,
  declineClaimAtStore,
  finishSignUp,
  joinWithInvitation,
  signUp,
  startClaim,
  type ClaimAskingStore,
} from './sign-up.js';
export { mailerFor, type Mailer } from './mail.js';
