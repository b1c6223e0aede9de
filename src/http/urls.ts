import { badRequest } from './errors.js';

/** An absolute http or https URL as stored (normalized by URL), or a 400 naming the field. */
export function checkHttpUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw badRequest(`${field} must be an absolute http or https URL (got "${value}")`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw badRequest(`${field} must be an absolute http or https URL (got "${value}")`);
  }
  return url.toString();
}
