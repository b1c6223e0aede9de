import { looksLikeEmail, normalizeEmail } from '../shared/email.js';
import { badRequest } from './errors.js';

/** The normalized email of a request, or 400 for one that is not an address. */
export function checkedEmail(input: string): string {
  const email = normalizeEmail(input);
  if (!looksLikeEmail(email)) throw badRequest('email must be an email address of at most 254 characters');
  return email;
}
