// Generated from /v1/openapi.json by openapi-typescript: `npm run openapi:types`. Do not edit.

export interface paths {
    "/v1/platform/brands": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Upsert the brands that use this platform
         * @description Upserts by normalized domain for the platform of the key; brands not in the request are unchanged. Send status closed to stop a brand. At most 1000 brands and 1 MB per request.
         */
        post: operations["syncPlatformBrands"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/partners": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the brand's partnerships
         * @description Partnerships seen from the caller, newest first. status defaults to active; declined also returns partnerships removed later (they carry removed). totalRows counts every page.
         */
        get: operations["listPartners"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the campaigns of the brand's collaborations
         * @description Campaigns the brand owns or takes part in as partner, newest first, with their status now (a scheduled campaign is active from its startDate; any campaign is closed after its endDate).
         */
        get: operations["listCampaigns"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/discover/partner/recommendations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Recommended partner brands
         * @description At most 50 brands the caller has no pending or active partnership with: scored ones best first, then brands not scored yet (without matchRate), newest first. Not paged.
         */
        get: operations["listRecommendations"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/r/{token}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Follow a referral link
         * @description Records one click credited to the platform that showed the offer and redirects (302) to the partner's store with its discount code. An unknown or damaged token gets an HTML page with status 404.
         */
        get: operations["followReferralLink"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/campaigns/offers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Partner offers to show to shoppers
         * @description The live offers of the brand's partners in its active campaigns, best first, at most 6. Each offer returned counts as one view for the platform, so request offers only when about to show them. Rate limit: 3000 requests per minute per brand.
         */
        get: operations["listOffers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/oauth-authorization-server": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** OAuth 2 authorization server metadata (RFC 8414) */
        get: operations["getAuthorizationServerMetadata"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/authorize": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Begin authorization (OAuth 2 authorization code with PKCE)
         * @description Opened in the brand staff's browser by the app. Shows the sign-in page, then the consent page naming the app, the scope and the platform; Allow redirects to redirect_uri with `code`, `state` and `iss`, Deny with `error=access_denied`. A bad request from a known client and redirect_uri goes back to the app as `error` and `error_description` (RFC 6749 4.1.2.1); an unknown client or redirect_uri is shown on a page instead.
         */
        get: operations["beginAuthorization"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Obtain tokens
         * @description Form-encoded (RFC 6749). Grants: authorization_code (PKCE S256 required), refresh_token (rotates; reuse of a rotated token revokes the grant), client_credentials (confidential clients bound to a brand). Clients authenticate with HTTP Basic or client_id/client_secret in the body; public clients send client_id only.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/oauth/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Revoke a token (RFC 7009)
         * @description Form-encoded `token` (and optional `token_type_hint`). A refresh token revokes its whole grant. Answers 200 for unknown tokens too; a token issued to another client is refused with 400 invalid_grant.
         */
        post: operations["revokeToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/commerce/orders": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver an order (commerce platform webhook)
         * @description Body signed with HMAC-SHA256 over `<timestamp>.<body>` using the shared secret: `X-Svc-Timestamp: <unix seconds>`, `X-Svc-Signature: sha256=<hex>`. An order id delivered again is counted once. Attribution: docs/attribution.md.
         */
        post: operations["receiveOrder"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/webhooks/commerce/order-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Deliver a cancel or refund of an order (commerce platform webhook)
         * @description Body signed with HMAC-SHA256 over `<timestamp>.<body>` using the shared secret: `X-Svc-Timestamp: <unix seconds>`, `X-Svc-Signature: sha256=<hex>`. The order's commission is reversed by a ledger entry of the opposite sign, for the share the event took; an event id delivered again counts once. An event for an order the service has not received yet is kept (status waiting_for_order) and applied when the order arrives.
         */
        post: operations["receiveOrderEvent"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** Error */
        ErrorResponse: {
            /** @description Machine-readable error code */
            error: string;
            /** @description What check failed, in words */
            message: string;
            requestId?: string;
            allowed?: string[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    syncPlatformBrands: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "brands": [
                 *         {
                 *           "domain": "https://www.Northwind-Outfitters.example/shop",
                 *           "businessName": "Northwind"
                 *         },
                 *         {
                 *           "domain": "old-brand.example",
                 *           "status": "closed"
                 *         }
                 *       ]
                 *     }
                 */
                "application/json": {
                    brands: {
                        /** @description Website of the brand; normalized before storing (SPEC 4.2) */
                        domain: string;
                        /** @description Stored as the brand name when sent */
                        businessName?: string;
                        /**
                         * @description Default active
                         * @enum {string}
                         */
                        status?: "active" | "closed";
                    }[];
                    /** @description If sent, must equal the platform of the key */
                    platformId?: string;
                };
            };
        };
        responses: {
            /** @description The brands in the request were upserted (counts of this request, not a catalog) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "received": 2,
                     *       "created": 1,
                     *       "updated": 1
                     *     }
                     */
                    "application/json": {
                        /** @description Items in this request */
                        received: number;
                        /** @description Records created by this request */
                        created: number;
                        /** @description Existing records updated by this request */
                        updated: number;
                    };
                };
            };
            /** @description More than 1000 brands, a body over 1 MB, malformed JSON, a missing domain, a bad status, a name or normalized domain over 100 characters, X-Platform-Id sent, or a platformId in the body other than the key's */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_request",
                     *       "message": "brands must have at most 1000 items",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The platform key is missing, unknown, revoked or expired, or a brand key or OAuth token was sent */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "invalid platform key: unknown or revoked",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests for this key or address this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute exceeded; retry in 12 s",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database could not be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "the service is temporarily unavailable; retry shortly",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listPartners: {
        parameters: {
            query?: {
                /** @description Partnerships with this status, seen from the caller; declined also returns removed ones */
                status?: "active" | "inviteSent" | "inviteReceived" | "declined" | "removed";
                /** @description 1-based page number */
                pageIndex?: number;
                /** @description Items per page, at most 100 */
                pageSize?: number;
            };
            header?: {
                /**
                 * @description Platform.Id (UUID) of an active platform, sent only when one was assigned
                 * @example 7d9c3f5e-2b1a-4c8e-9f4d-1a2b3c4d5e6f
                 */
                "x-platform-id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the partnerships with this status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "companyId": "harbor-vine-coffee",
                     *           "businessName": "Harbor & Vine Coffee Roasters",
                     *           "domain": "harborandvine.example",
                     *           "logoImageUrl": "https://harborandvine.example/logo.png",
                     *           "status": "active"
                     *         },
                     *         {
                     *           "companyId": "trailpeak-gear",
                     *           "businessName": "TrailPeak Gear",
                     *           "domain": "trailpeak.example",
                     *           "status": "active"
                     *         }
                     *       ],
                     *       "totalRows": 2
                     *     }
                     */
                    "application/json": {
                        data: {
                            /** @description Partner company id */
                            companyId: string;
                            /** @description Partner brand name; omitted when unknown */
                            businessName?: string;
                            /** @description Partner website domain; omitted when unknown */
                            domain?: string;
                            /** @description Omitted when the brand has no logo */
                            logoImageUrl?: string;
                            /** @enum {string} */
                            status: "active" | "inviteSent" | "inviteReceived" | "declined" | "removed";
                        }[];
                        /** @description Partnerships matching the status filter across all pages */
                        totalRows: number;
                    };
                };
            };
            /** @description Unsupported status, pageIndex or pageSize out of range, or X-Platform-Id not an active platform */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_request",
                     *       "message": "pageSize must be <= 100",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The API key or access token is missing, invalid, expired or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "invalid API key: unknown or revoked",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests for this key or address this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute exceeded; retry in 12 s",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The list could not be loaded */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "internal_error",
                     *       "message": "the request could not be completed because of an error on our side",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database could not be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "the service is temporarily unavailable; retry shortly",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listCampaigns: {
        parameters: {
            query?: {
                /** @description Campaigns with this status now; omitted returns every status */
                status?: "draft" | "active" | "closed";
                /** @description 1-based page number */
                pageIndex?: number;
                /** @description Items per page, at most 100 */
                pageSize?: number;
            };
            header?: {
                /**
                 * @description Platform.Id (UUID) of an active platform, sent only when one was assigned
                 * @example 7d9c3f5e-2b1a-4c8e-9f4d-1a2b3c4d5e6f
                 */
                "x-platform-id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description One page of the campaigns with this status */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "id": "cmp-summer-trail-bundle",
                     *           "name": "Summer Trail Bundle",
                     *           "status": "active",
                     *           "startDate": "2025-06-01T00:00:00.000Z",
                     *           "endDate": null
                     *         },
                     *         {
                     *           "id": "cmp-morning-ritual",
                     *           "name": "Morning Ritual Cross-Promo",
                     *           "status": "closed",
                     *           "startDate": "2025-09-15T00:00:00.000Z",
                     *           "endDate": "2025-10-31T23:59:59.000Z"
                     *         }
                     *       ],
                     *       "totalRows": 2
                     *     }
                     */
                    "application/json": {
                        data: {
                            /** @description Campaign id */
                            id: string;
                            /** @description Campaign name; omitted when it has none */
                            name?: string;
                            /**
                             * @description Status now: a scheduled campaign is active from its startDate, any campaign is closed after its endDate
                             * @enum {string}
                             */
                            status: "draft" | "active" | "closed";
                            /** @description ISO 8601 date-time; null when unset */
                            startDate: string | null;
                            /** @description ISO 8601 date-time; null when unset */
                            endDate: string | null;
                        }[];
                        /** @description Campaigns matching the filter across all pages */
                        totalRows: number;
                    };
                };
            };
            /** @description Unsupported status, pageIndex or pageSize out of range, or X-Platform-Id not an active platform */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_request",
                     *       "message": "status must be one of: draft, active, closed",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The API key or access token is missing, invalid, expired or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "invalid API key: unknown or revoked",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests for this key or address this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute exceeded; retry in 12 s",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The list could not be loaded */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "internal_error",
                     *       "message": "the request could not be completed because of an error on our side",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database could not be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "the service is temporarily unavailable; retry shortly",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listRecommendations: {
        parameters: {
            query?: never;
            header?: {
                /**
                 * @description Platform.Id (UUID) of an active platform, sent only when one was assigned
                 * @example 7d9c3f5e-2b1a-4c8e-9f4d-1a2b3c4d5e6f
                 */
                "x-platform-id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The recommended brands, best first */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "data": [
                     *         {
                     *           "domain": "lumenskincare.example",
                     *           "businessName": "Lumen Skincare",
                     *           "logoImageUrl": "https://lumenskincare.example/logo.png",
                     *           "description": "Fragrance-free, dermatologist-formulated daily skincare.",
                     *           "matchRate": 70,
                     *           "businessSize": "Medium",
                     *           "country": "Canada",
                     *           "categories": [
                     *             "Beauty",
                     *             "Skincare"
                     *           ],
                     *           "productCount": 85,
                     *           "platform": "Shopify"
                     *         },
                     *         {
                     *           "domain": "greenleaftea.example",
                     *           "businessName": "Greenleaf Tea Co.",
                     *           "categories": [
                     *             "Food & Beverage",
                     *             "Tea"
                     *           ]
                     *         }
                     *       ],
                     *       "totalRows": 2
                     *     }
                     */
                    "application/json": {
                        data: {
                            /** @description Brand website domain */
                            domain?: string;
                            /** @description Brand name */
                            businessName?: string;
                            /** @description Omitted when no logo */
                            logoImageUrl?: string;
                            /** @description Short description; omitted when none */
                            description?: string;
                            /** @description Match score for the caller, 0-100; omitted when not yet scored */
                            matchRate?: number;
                            /** @description Size label such as Medium; omitted when unknown */
                            businessSize?: string;
                            /** @description Primary country name; omitted when unknown */
                            country?: string;
                            /** @description Category names; empty when none */
                            categories: string[];
                            /** @description Catalog size; omitted when unknown */
                            productCount?: number;
                            /** @description Commerce platform name; omitted when unknown */
                            platform?: string;
                        }[];
                        /** @description Number of recommendations in this result */
                        totalRows: number;
                    };
                };
            };
            /** @description X-Platform-Id is not an active platform, or pageIndex or pageSize was sent */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_request",
                     *       "message": "X-Platform-Id is not an active platform",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The API key or access token is missing, invalid, expired or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "invalid API key: unknown or revoked",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests for this key or address this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute exceeded; retry in 12 s",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The list could not be loaded */
            500: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "internal_error",
                     *       "message": "the request could not be completed because of an error on our side",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The database could not be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "the service is temporarily unavailable; retry shortly",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    followReferralLink: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /**
                 * @description Opaque referral token, exactly as returned in referralUrl
                 * @example SGFyYm9yIGFuZCBWaW5lLmNoZWNrb3V0LWNv
                 */
                token: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The click was counted: on to the partner's store, its discount applied */
            302: {
                headers: {
                    /** @description The partner's store with its discount code, carrying the referral token (`ref`) */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The token is unknown or damaged: a page telling the shopper so */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Too many requests for this key or address this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute exceeded; retry in 12 s",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The click could not be recorded; retry after Retry-After seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "the click could not be recorded; retry shortly",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Any other failure */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "internal_error",
                     *       "message": "the request could not be completed because of an error on our side",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    listOffers: {
        parameters: {
            query: {
                /**
                 * @description Offer type; only post-purchase (offers shown after checkout)
                 * @example post-purchase
                 */
                type: "post-purchase";
            };
            header?: {
                /**
                 * @description Platform displaying the offers (UUID). Required with an API key; optional with an OAuth token that carries the platform, and then equal to it. A brand's own site sends the service's platform id.
                 * @example 7d9c3f5e-2b1a-4c8e-9f4d-1a2b3c4d5e6f
                 */
                "x-platform-id"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The offers to show now, best first; each counted as one view for the platform */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "offers": [
                     *         {
                     *           "imageUrl": "https://harborandvine.example/offer.jpg",
                     *           "referralUrl": "https://api.partner-collab.example/r/SGFyYm9yIGFuZCBWaW5lLmNoZWNrb3V0LWNv",
                     *           "title": "15% off freshly roasted beans",
                     *           "subtitle": "Small-batch coffee, roasted to order"
                     *         },
                     *         {
                     *           "imageUrl": "https://trailpeak.example/offer.jpg",
                     *           "referralUrl": "https://api.partner-collab.example/r/Qm9vdHMgYW5kIHRlbnRzLnRyYWlscGVhaw",
                     *           "title": "10% off tents and trekking gear"
                     *         }
                     *       ]
                     *     }
                     */
                    "application/json": {
                        offers: {
                            /** @description URL of the offer image */
                            imageUrl: string;
                            /** @description Link exactly as returned, with no parameters added; specific to the requesting platform */
                            referralUrl: string;
                            /** @description Primary offer text */
                            title: string;
                            /** @description Supporting text; omitted when the offer has none */
                            subtitle?: string;
                        }[];
                    };
                };
            };
            /** @description invalid_offer_type (type missing or unsupported; `allowed` lists the values), platform_required, invalid_platform, platform_mismatch (X-Platform-Id differs from the platform of the token) or unsupported_platform */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_offer_type",
                     *       "message": "query parameter type must be one of: post-purchase",
                     *       "allowed": [
                     *         "post-purchase"
                     *       ],
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The API key or access token is missing, invalid, expired or revoked */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "invalid API key: unknown or revoked",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description More than 3000 offer requests this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 3000 requests per minute exceeded; retry in 12 s",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The views could not be counted or the database could not be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "the offers could not be counted as shown; retry shortly",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    getAuthorizationServerMetadata: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Where the OAuth endpoints are and what they support */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "issuer": "https://api.partner-collab.example",
                     *       "authorization_endpoint": "https://api.partner-collab.example/v1/oauth/authorize",
                     *       "token_endpoint": "https://api.partner-collab.example/v1/oauth/token",
                     *       "revocation_endpoint": "https://api.partner-collab.example/v1/oauth/revoke",
                     *       "response_types_supported": [
                     *         "code"
                     *       ],
                     *       "response_modes_supported": [
                     *         "query"
                     *       ],
                     *       "grant_types_supported": [
                     *         "authorization_code",
                     *         "refresh_token",
                     *         "client_credentials"
                     *       ],
                     *       "code_challenge_methods_supported": [
                     *         "S256"
                     *       ],
                     *       "token_endpoint_auth_methods_supported": [
                     *         "client_secret_basic",
                     *         "client_secret_post",
                     *         "none"
                     *       ],
                     *       "revocation_endpoint_auth_methods_supported": [
                     *         "client_secret_basic",
                     *         "client_secret_post",
                     *         "none"
                     *       ],
                     *       "scopes_supported": [
                     *         "brand"
                     *       ],
                     *       "authorization_response_iss_parameter_supported": true,
                     *       "service_documentation": "https://api.partner-collab.example/docs"
                     *     }
                     */
                    "application/json": {
                        issuer: string;
                        authorization_endpoint: string;
                        token_endpoint: string;
                        revocation_endpoint: string;
                        response_types_supported: string[];
                        response_modes_supported: string[];
                        grant_types_supported: string[];
                        code_challenge_methods_supported: string[];
                        token_endpoint_auth_methods_supported: string[];
                        revocation_endpoint_auth_methods_supported: string[];
                        scopes_supported: string[];
                        authorization_response_iss_parameter_supported: boolean;
                        service_documentation: string;
                    };
                };
            };
            /** @description Too many requests for this key or address this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute exceeded; retry in 12 s",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    beginAuthorization: {
        parameters: {
            query: {
                /** @description Always code */
                response_type: "code";
                /**
                 * @description The app asking
                 * @example svc_client_8f2a41c0d9e3
                 */
                client_id: string;
                /**
                 * @description One of the redirect URIs registered for the client, matched exactly
                 * @example https://app.example/callback
                 */
                redirect_uri: string;
                /**
                 * @description PKCE: base64url of the SHA-256 of the code verifier, 43 characters
                 * @example E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM
                 */
                code_challenge: string;
                /** @description Always S256 */
                code_challenge_method: "S256";
                /**
                 * @description Space-separated; brand is the one scope (and the default)
                 * @example brand
                 */
                scope?: string;
                /**
                 * @description Returned unchanged with the code: 1 to 500 printable ASCII characters
                 * @example af0ifjsldkj
                 */
                state?: string;
                /**
                 * @description An active platform the token will carry: the app's calls are then credited to it (SPEC 4.1)
                 * @example 3f1c2a9e-8b7d-4e6f-9a0b-1c2d3e4f5a6b
                 */
                platform_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The sign-in page, or once signed in the consent page */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description The request is wrong in a way the app must hear of: back to redirect_uri with error */
            303: {
                headers: {
                    /** @description redirect_uri with error, error_description, state and iss */
                    Location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description The client or redirect_uri is unknown, missing or sent twice: a page saying so */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/html": string;
                };
            };
            /** @description Too many requests for this key or address this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute exceeded; retry in 12 s",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "grant_type": "authorization_code",
                 *       "code": "svc_code_Jq3v0m9XkRgN2tL7wYb4",
                 *       "redirect_uri": "https://app.example/callback",
                 *       "code_verifier": "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk",
                 *       "client_id": "svc_client_8f2a41c0d9e3"
                 *     }
                 */
                "application/x-www-form-urlencoded": {
                    /** @enum {string} */
                    grant_type: "authorization_code" | "refresh_token" | "client_credentials";
                    /** @description authorization_code: the code from the redirect */
                    code?: string;
                    /** @description authorization_code: the redirect_uri of the authorization request */
                    redirect_uri?: string;
                    /** @description authorization_code: the PKCE verifier (S256) */
                    code_verifier?: string;
                    /** @description refresh_token: the refresh token, rotated by this call */
                    refresh_token?: string;
                    /** @description Space-separated; brand is the one scope */
                    scope?: string;
                    /** @description Without HTTP Basic: the client id (public clients send only this) */
                    client_id?: string;
                    /** @description Without HTTP Basic: the secret of a confidential client */
                    client_secret?: string;
                };
            };
        };
        responses: {
            /** @description The tokens (RFC 6749 5.1); never cached */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "access_token": "svc_at_4kT9xQ2mVb7nR1wLc8pZ3yHd",
                     *       "token_type": "Bearer",
                     *       "expires_in": 3600,
                     *       "refresh_token": "svc_rt_N6gW2sJ8vK0qX5cT1mBf9rLe",
                     *       "scope": "brand"
                     *     }
                     */
                    "application/json": {
                        /** @description Sent as Authorization: Bearer; valid about an hour */
                        access_token: string;
                        /** @enum {string} */
                        token_type: "Bearer";
                        /** @description Seconds the access token stays valid */
                        expires_in: number;
                        /** @description Valid about 5 years; each use returns a new one. Not issued for client_credentials */
                        refresh_token?: string;
                        /** @description Granted scopes, space-separated */
                        scope: string;
                    };
                };
            };
            /** @description invalid_request, invalid_grant (a code or refresh token unknown, expired, used or of another client), unsupported_grant_type or invalid_scope */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_grant",
                     *       "error_description": "Invalid grant: authorization code is invalid"
                     *     }
                     */
                    "application/json": {
                        /** @description RFC 6749 5.2 error code */
                        error: string;
                        /** @description What went wrong, in words */
                        error_description: string;
                    };
                };
            };
            /** @description invalid_client: the client is unknown or its secret is wrong */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_client",
                     *       "error_description": "client authentication failed"
                     *     }
                     */
                    "application/json": {
                        /** @description RFC 6749 5.2 error code */
                        error: string;
                        /** @description What went wrong, in words */
                        error_description: string;
                    };
                };
            };
            /** @description Too many requests this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "error_description": "rate limit of 600 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": {
                        /** @description RFC 6749 5.2 error code */
                        error: string;
                        /** @description What went wrong, in words */
                        error_description: string;
                    };
                };
            };
            /** @description The database could not be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "temporarily_unavailable",
                     *       "error_description": "the service is temporarily unavailable; retry shortly"
                     *     }
                     */
                    "application/json": {
                        /** @description RFC 6749 5.2 error code */
                        error: string;
                        /** @description What went wrong, in words */
                        error_description: string;
                    };
                };
            };
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "token": "svc_rt_N6gW2sJ8vK0qX5cT1mBf9rLe",
                 *       "token_type_hint": "refresh_token",
                 *       "client_id": "svc_client_8f2a41c0d9e3"
                 *     }
                 */
                "application/x-www-form-urlencoded": {
                    /** @description The access or refresh token to revoke; a refresh token revokes its whole grant */
                    token: string;
                    /** @enum {string} */
                    token_type_hint?: "access_token" | "refresh_token";
                    /** @description Without HTTP Basic: the client id */
                    client_id?: string;
                    /** @description Without HTTP Basic: the secret of a confidential client */
                    client_secret?: string;
                };
            };
        };
        responses: {
            /** @description The token is revoked, or was unknown (RFC 7009 2.2) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description invalid_request (no token), or invalid_grant: the token was issued to another client */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_grant",
                     *       "error_description": "the token was issued to another client"
                     *     }
                     */
                    "application/json": {
                        /** @description RFC 6749 5.2 error code */
                        error: string;
                        /** @description What went wrong, in words */
                        error_description: string;
                    };
                };
            };
            /** @description invalid_client: no client, an unknown client or a wrong secret */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_client",
                     *       "error_description": "client authentication failed"
                     *     }
                     */
                    "application/json": {
                        /** @description RFC 6749 5.2 error code */
                        error: string;
                        /** @description What went wrong, in words */
                        error_description: string;
                    };
                };
            };
            /** @description Too many requests this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "error_description": "rate limit of 600 requests per minute exceeded; retry in 12 s"
                     *     }
                     */
                    "application/json": {
                        /** @description RFC 6749 5.2 error code */
                        error: string;
                        /** @description What went wrong, in words */
                        error_description: string;
                    };
                };
            };
            /** @description The database could not be reached; retry after Retry-After seconds */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "temporarily_unavailable",
                     *       "error_description": "the service is temporarily unavailable; retry shortly"
                     *     }
                     */
                    "application/json": {
                        /** @description RFC 6749 5.2 error code */
                        error: string;
                        /** @description What went wrong, in words */
                        error_description: string;
                    };
                };
            };
        };
    };
    receiveOrder: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description Unix seconds when the body was signed; outside the accepted window the delivery is refused
                 * @example 1762093867
                 */
                "x-svc-timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "orderId": "1001",
                 *       "storeDomain": "harborandvine.example",
                 *       "customerId": "cust_48213",
                 *       "totalCents": 4250,
                 *       "merchandiseCents": 3600,
                 *       "currency": "USD",
                 *       "placedAt": "2025-11-02T14:31:07.000Z",
                 *       "referralToken": "SGFyYm9yIGFuZCBWaW5lLmNoZWNrb3V0LWNv"
                 *     }
                 */
                "application/json": {
                    orderId: string;
                    storeDomain: string;
                    /** @description The store's customer id; stored hashed */
                    customerId: string;
                    /** @description What the customer paid, in the currency's minor units as ISO 4217 counts them (JPY 0 decimals, KWD 3) */
                    totalCents: number;
                    /** @description The merchandise bought, after discounts, without tax, shipping and duties, in minor units: the commission is a share of it. Omitted when the total is all merchandise */
                    merchandiseCents?: number;
                    /** @description ISO 4217 code; another three letters are refused (invalid_currency) */
                    currency: string;
                    /** Format: date-time */
                    placedAt: string;
                    referralToken?: string;
                    discountCode?: string;
                    /** @description The commerce platform's count of the customer's orders, this one included: 1 makes it a new customer's first order */
                    customerOrderCount?: number;
                };
            };
        };
        responses: {
            /** @description The order was received (counted once, also when delivered again) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "orderId": "1001",
                     *       "duplicate": false,
                     *       "platformId": "7d9c3f5e-2b1a-4c8e-9f4d-1a2b3c4d5e6f",
                     *       "matchedBy": "referral_link",
                     *       "touch": "click",
                     *       "outsideWindow": false,
                     *       "newCustomer": true,
                     *       "customerBasis": "store_history",
                     *       "commissionCents": 180,
                     *       "currency": "USD",
                     *       "eventsApplied": []
                     *     }
                     */
                    "application/json": {
                        orderId: string;
                        /** @description True when this order id was delivered before; nothing was counted again */
                        duplicate: boolean;
                        platformId: string | null;
                        matchedBy: "referral_link" | "discount_code" | null;
                        /** @description The showing that won the order: the last click within the attribution window, else (view-through) the last view */
                        touch: "click" | "view" | null;
                        /** @description The order named a showing, but none within the attribution window: recorded, not attributed */
                        outsideWindow: boolean;
                        newCustomer: boolean;
                        /** @description Why the customer counts as new or returning: the store's history, or the commerce platform's order count */
                        customerBasis: "store_history" | "platform_order_count";
                        /** @description The commission on the order's merchandise after discounts, in minor units */
                        commissionCents: number;
                        /** @description The order's ISO 4217 currency, as the service keeps it (upper case) */
                        currency: string;
                        /** @description Cancels and refunds that came before the order, applied now in the order they occurred */
                        eventsApplied: {
                            orderId: string;
                            eventId: string;
                            /** @description True when this event id was delivered before; nothing was reversed again */
                            duplicate: boolean;
                            /** @description waiting_for_order: the order has not arrived yet; the event is kept and applied when it does */
                            status: "applied" | "waiting_for_order";
                            /** @description What the event took off the order, in minor units (0 while waiting for the order) */
                            takenCents: number;
                            /** @description Commission reversed by this event (a ledger entry of the opposite sign), in minor units */
                            reversedCents: number;
                            currency: string | null;
                        }[];
                    };
                };
            };
            /** @description The body is not valid JSON or not an order, or its currency is not ISO 4217 (invalid_currency) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_request",
                     *       "message": "body/currency must match pattern",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The timestamp or signature is missing, outside the accepted window, or does not match the body */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "x-svc-signature does not match the body",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests for this key or address this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute exceeded; retry in 12 s",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The webhook is not configured on this host (no ORDERS_WEBHOOK_SECRET), or the database could not be reached */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "the order webhook is not configured on this host",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
    receiveOrderEvent: {
        parameters: {
            query?: never;
            header: {
                /**
                 * @description Unix seconds when the body was signed; outside the accepted window the delivery is refused
                 * @example 1762093867
                 */
                "x-svc-timestamp": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                /**
                 * @example {
                 *       "eventId": "rf-1",
                 *       "type": "refund",
                 *       "orderId": "1001",
                 *       "storeDomain": "shop.example",
                 *       "amountCents": 2000,
                 *       "currency": "USD",
                 *       "occurredAt": "2026-11-02T15:04:05Z"
                 *     }
                 */
                "application/json": {
                    /** @description The platform's id of the refund or cancellation; a replay counts once */
                    eventId: string;
                    type: "refund" | "cancel";
                    orderId: string;
                    storeDomain: string;
                    /** @description A refund: how much was refunded, in minor units. A cancel takes what is left */
                    amountCents?: number;
                    /** @description The order's currency; another one is refused */
                    currency?: string;
                    /** Format: date-time */
                    occurredAt: string;
                };
            };
        };
        responses: {
            /** @description The event was taken (once, also when delivered again): applied, or kept until its order arrives */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "orderId": "1001",
                     *       "eventId": "rf-1",
                     *       "duplicate": false,
                     *       "status": "applied",
                     *       "takenCents": 2000,
                     *       "reversedCents": 100,
                     *       "currency": "USD"
                     *     }
                     */
                    "application/json": {
                        orderId: string;
                        eventId: string;
                        /** @description True when this event id was delivered before; nothing was reversed again */
                        duplicate: boolean;
                        /** @description waiting_for_order: the order has not arrived yet; the event is kept and applied when it does */
                        status: "applied" | "waiting_for_order";
                        /** @description What the event took off the order, in minor units (0 while waiting for the order) */
                        takenCents: number;
                        /** @description Commission reversed by this event (a ledger entry of the opposite sign), in minor units */
                        reversedCents: number;
                        currency: string | null;
                    };
                };
            };
            /** @description The body is not valid JSON or not an event, or its currency is not ISO 4217 or not the order's */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "invalid_request",
                     *       "message": "the order is in USD, not EUR",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The timestamp or signature is missing, outside the accepted window, or does not match the body */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "unauthorized",
                     *       "message": "x-svc-signature does not match the body",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The event id was delivered before for another order */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "conflict",
                     *       "message": "event rf-1 was received for order 1000",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description Too many requests for this key or address this minute; Retry-After says when to retry */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "rate_limited",
                     *       "message": "rate limit of 600 requests per minute exceeded; retry in 12 s",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
            /** @description The webhook is not configured on this host (no ORDERS_WEBHOOK_SECRET), or the database could not be reached */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    /**
                     * @example {
                     *       "error": "service_unavailable",
                     *       "message": "the order webhook is not configured on this host",
                     *       "requestId": "0f5b7a9c-3d2e-4b1a-8c6d-9e0f1a2b3c4d"
                     *     }
                     */
                    "application/json": components["schemas"]["ErrorResponse"];
                };
            };
        };
    };
}
