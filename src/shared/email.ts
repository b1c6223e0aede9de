const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/** Whether an email (already normalized) has an address's shape and fits in `maxLength`. */
export function looksLikeEmail(email: string, maxLength = 254): boolean {
  return email.length <= maxLength && EMAIL_PATTERN.test(email);
}
