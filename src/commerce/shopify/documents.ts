/**
 * Every GraphQL document the Shopify adapter sends, as `#graphql` template literals without
 * interpolation (Shopify's convention), so documents.test.ts validates each against the Admin API
 * schema of the version the service names (2026-10). Bulk queries are documents of their own too,
 * passed to bulkOperationRunQuery as a variable.
 */

/** The store as the service imports it. */
/**
 * The store's own domain, as shoppers know it (issue 25): `primaryDomain`. `Shop.domains` is
 * deprecated in 2026-10 for `domainsPaginated`, which the published 2026-10 schema does not have,
 * and Shopify redirects a store's other domains to its primary one, so the primary is the host a
 * shopper and a platform see. Read with the profile at setup, and with the hourly round that checks
 * the store's webhook subscriptions (no call of its own); at install on its own.
 */
export const SHOP_DOMAINS = `#graphql
  query ShopDomains {
    shop { primaryDomain { host } }
  }`;

export const SHOP_PROFILE = `#graphql
  query ShopProfile {
    shop {
      name
      description
      billingAddress { countryCodeV2 }
      primaryDomain { host }
    }
  }`;

/**
 * Eligibility (SPEC 6.3): the orders the app can see and whether active products have images. A
 * page of active products is enough to find one with an image; the count says "at least".
 */
export const ELIGIBILITY = `#graphql
  query Eligibility {
    ordersCount { count precision }
    products(first: 25, query: "status:active") { nodes { featuredImage { url } } }
  }`;

/**
 * New or returning (issue 25): the order webhooks no longer carry the customer's order count, so
 * the order's place in its customer's history comes from the Admin API (test orders not counted).
 * The same read gives the visits that led to the order, whose landing page and referral code
 * (Shopify's reading of the page's `ref`) carry the shopper's click when the webhook's
 * `landing_site` does not (a later visit, say).
 */
export const ORDER_JOURNEY = `#graphql
  query OrderJourney($id: ID!) {
    order(id: $id) {
      customerJourneySummary {
        customerOrderIndex
        firstVisit { landingPage referralCode }
        lastVisit { landingPage referralCode }
      }
    }
  }`;

export const PRODUCTS_COUNT = `#graphql
  query ProductsCount {
    productsCount { count precision }
  }`;

/** One page of the catalog: 200 products cost about 800 of the 1,000 points a query may take. */
export const CATALOG_PAGE = `#graphql
  query CatalogPage($after: String) {
    products(first: 200, after: $after) {
      pageInfo { hasNextPage endCursor }
      nodes {
        id
        title
        status
        featuredImage { url }
        priceRangeV2 { minVariantPrice { amount currencyCode } }
      }
    }
  }`;

/** The whole catalog as a bulk operation, for stores with more products than a few pages. */
export const BULK_CATALOG = `#graphql
  query BulkCatalog {
    products {
      edges {
        node {
          id
          title
          status
          featuredImage { url }
          priceRangeV2 { minVariantPrice { amount currencyCode } }
        }
      }
    }
  }`;

/**
 * Units sold by product, from the orders' line items: 2026-10 has no best-seller field or sort,
 * so the service counts them from bulk operations over the orders, one per date range, run at
 * once. A bulk query takes no variables: `ORDERS_SEARCH` is replaced by the range's search
 * (bulk.ts, withSearch).
 */
export const BULK_UNITS_SOLD = `#graphql
  query BulkUnitsSold {
    orders(query: "ORDERS_SEARCH") {
      edges {
        node {
          id
          lineItems { edges { node { quantity product { id } } } }
        }
      }
    }
  }`;

/** The store's oldest order the app can see, where the units-sold scan's date ranges start. */
export const OLDEST_ORDER = `#graphql
  query OldestOrder {
    orders(first: 1, sortKey: CREATED_AT) { nodes { createdAt } }
  }`;

/** Customers of the store's past orders, oldest first, for new-versus-returning (a store joining through a claim). */
export const BULK_PAST_ORDERS = `#graphql
  query BulkPastOrders {
    orders(sortKey: CREATED_AT) {
      edges { node { id createdAt customer { id } totalPriceSet { shopMoney { amount currencyCode } } } }
    }
  }`;

export const RUN_BULK_QUERY = `#graphql
  mutation RunBulkQuery($query: String!) {
    bulkOperationRunQuery(query: $query) {
      bulkOperation { id status }
      userErrors { field message code }
    }
  }`;

export const BULK_OPERATION = `#graphql
  query BulkOperation($id: ID!) {
    bulkOperation(id: $id) { id status errorCode objectCount url }
  }`;

export const PRODUCTS_BY_ID = `#graphql
  query ProductsById($ids: [ID!]!) {
    nodes(ids: $ids) {
      ... on Product {
        id
        title
        status
        featuredImage { url }
        priceRangeV2 { minVariantPrice { amount currencyCode } }
      }
    }
  }`;

export const DISCOUNT_BY_CODE = `#graphql
  query DiscountByCode($code: String!) {
    codeDiscountNodeByCode(code: $code) { id }
  }`;

export const CREATE_DISCOUNT = `#graphql
  mutation CreateDiscount($discount: DiscountCodeBasicInput!) {
    discountCodeBasicCreate(basicCodeDiscount: $discount) {
      codeDiscountNode { id }
      userErrors { field message code }
    }
  }`;

export const UPDATE_DISCOUNT = `#graphql
  mutation UpdateDiscount($id: ID!, $discount: DiscountCodeBasicInput!) {
    discountCodeBasicUpdate(id: $id, basicCodeDiscount: $discount) {
      codeDiscountNode { id }
      userErrors { field message code }
    }
  }`;

export const DELETE_DISCOUNT = `#graphql
  mutation DeleteDiscount($id: ID!) {
    discountCodeDelete(id: $id) {
      deletedCodeDiscountId
      userErrors { field message code }
    }
  }`;

/** The usage plan: no monthly fee, a share of first orders, up to the capped amount every 30 days. */
export const CREATE_SUBSCRIPTION = `#graphql
  mutation CreateSubscription($name: String!, $returnUrl: URL!, $lineItems: [AppSubscriptionLineItemInput!]!, $test: Boolean) {
    appSubscriptionCreate(name: $name, returnUrl: $returnUrl, lineItems: $lineItems, test: $test) {
      confirmationUrl
      appSubscription { id status }
      userErrors { field message }
    }
  }`;

/** Whether the store is a development or staff store, where Shopify takes test charges only. */
export const SHOP_PLAN = `#graphql
  query ShopPlan {
    shop { plan { partnerDevelopment publicDisplayName } }
  }`;

/** One subscription's status: whether the one created for the merchant is still waiting for them. */
export const SUBSCRIPTION_STATUS = `#graphql
  query SubscriptionStatus($id: ID!) {
    node(id: $id) {
      ... on AppSubscription { id status }
    }
  }`;

/** The plan's state, read back from the app's installation. */
export const INSTALLATION = `#graphql
  query Installation {
    currentAppInstallation {
      activeSubscriptions {
        id
        name
        status
        lineItems {
          id
          plan {
            pricingDetails {
              __typename
              ... on AppUsagePricing { cappedAmount { amount currencyCode } }
            }
          }
        }
      }
    }
  }`;

export const RECORD_USAGE = `#graphql
  mutation RecordUsage($lineItemId: ID!, $price: MoneyInput!, $description: String!, $idempotencyKey: String) {
    appUsageRecordCreate(subscriptionLineItemId: $lineItemId, price: $price, description: $description, idempotencyKey: $idempotencyKey) {
      appUsageRecord { id }
      userErrors { field message }
    }
  }`;

/**
 * Asks the merchant to raise the usage line item's capped amount (issue 25): Shopify answers with a
 * confirmation URL where the merchant approves it; the cap changes only then.
 */
export const UPDATE_CAPPED_AMOUNT = `#graphql
  mutation UpdateCappedAmount($id: ID!, $cappedAmount: MoneyInput!) {
    appSubscriptionLineItemUpdate(id: $id, cappedAmount: $cappedAmount) {
      confirmationUrl
      userErrors { field message }
    }
  }`;

/** The shop's subscriptions to the service's address: the reconciler recreates the ones Shopify deleted. */
export const WEBHOOK_SUBSCRIPTIONS = `#graphql
  query WebhookSubscriptions($uri: String!) {
    webhookSubscriptions(first: 25, uri: $uri) {
      nodes { topic }
    }
    shop { primaryDomain { host } }
  }`;

export const SUBSCRIBE_WEBHOOK = `#graphql
  mutation SubscribeWebhook($topic: WebhookSubscriptionTopic!, $uri: String!) {
    webhookSubscriptionCreate(topic: $topic, webhookSubscription: { uri: $uri, format: JSON }) {
      webhookSubscription { id }
      userErrors { field message }
    }
  }`;
