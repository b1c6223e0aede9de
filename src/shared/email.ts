import { badRequest } from '../http/errors.js';

const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Whether an email (already normalized) has an address's shape and fits in `maxLength`. */
export function looksLikeEmail(email: string, maxLength = 254): boolean {
  return email.length <= maxLength && EMAIL_PATTERN.test(email);
}

/** The normalized email, or 400 for one that is not an address. */
export function checkedEmail(input: string): string {
  const email = normalizeEmail(input);
  if (!looksLikeEmail(email)) throw badRequest('email must be an email address of at most 254 characters');
  return email;
}
