import type { IncomingHttpHeaders } from 'node:http';
import type { Authenticator, BrandPrincipal, PlatformRecord } from '../auth/authenticator.js';
import { ApiError } from '../http/errors.js';

/**
 * The platform the offers are shown on (SPEC 4.1): X-Platform-Id, or the platform an OAuth token
 * was authorized for; when both are present they must agree. The offers endpoint always needs one.
 * The brand's PlatformCompany link is recorded only once every check has passed.
 */
export async function platformForOffers(
  auth: Authenticator,
  headers: IncomingHttpHeaders,
  brand: BrandPrincipal,
  offerType: string,
): Promise<PlatformRecord> {
  const fromHeader = await auth.resolvePlatformHeader(headers, 'invalid_platform');
  const tokenPlatformId = brand.tokenPlatformId?.toLowerCase();
  let platform: PlatformRecord;
  if (fromHeader) {
    if (tokenPlatformId && fromHeader.id !== tokenPlatformId) {
      throw new ApiError(400, 'platform_mismatch', 'X-Platform-Id differs from the platform the access token was authorized for');
    }
    platform = fromHeader;
  } else if (tokenPlatformId) {
    const carried = await auth.findPlatform(tokenPlatformId);
    if (!carried?.active) {
      throw new ApiError(400, 'invalid_platform', 'the platform the access token was authorized for is not an active platform');
    }
    platform = carried;
  } else {
    const hint = brand.via === 'api_key' ? 'requests with an API key must send X-Platform-Id' : 'send X-Platform-Id';
    throw new ApiError(400, 'platform_required', `no platform given: ${hint} (the service's own platform id for a brand's own site)`);
  }
  if (!platform.offerTypes.includes(offerType)) {
    throw new ApiError(400, 'unsupported_platform', `platform ${platform.id} is not set up to show ${offerType} offers`);
  }
  await auth.linkBrandToPlatform(platform, brand);
  return platform;
}
