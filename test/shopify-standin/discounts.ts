import type { ResolverContext } from './core.js';
import { notImplemented } from './errors.js';
import { gid, parseGid, type BasicDiscount } from './model.js';
import { paginate, type ConnectionArgs } from './pagination.js';
import { count, money } from './views.js';

/**
 * Basic code discounts: discountCodeBasicCreate / discountCodeBasicUpdate / discountCodeDelete,
 * codeDiscountNode and codeDiscountNodeByCode. The stand-in takes a percentage off all items
 * (what the service offers); fixed amounts and product or collection scopes are not implemented.
 */
interface DiscountUserError {
  field: string[];
  message: string;
  code: string;
  extraInfo: null;
}

interface BasicCodeDiscountInput {
  title?: string | null;
  code?: string | null;
  startsAt?: string | null;
  endsAt?: string | null;
  appliesOncePerCustomer?: boolean | null;
  usageLimit?: number | null;
  customerGets?: {
    value?: { percentage?: number | null; discountAmount?: unknown; discountOnQuantity?: unknown } | null;
    items?: { all?: boolean | null; products?: unknown; collections?: unknown } | null;
  } | null;
  context?: { all?: string | null; customers?: unknown; customerSegments?: unknown; markets?: unknown } | null;
  customerSelection?: { all?: boolean | null } | null;
  combinesWith?: unknown;
  minimumRequirement?: unknown;
  recurringCycleLimit?: number | null;
  tags?: string[] | null;
}

const userError = (field: string[], message: string, code: string): DiscountUserError => ({
  field: ['basicCodeDiscount', ...field],
  message,
  code,
  extraInfo: null,
});
const MAX_CODE_LENGTH = 255;

function status(discount: BasicDiscount, now: Date): 'ACTIVE' | 'EXPIRED' | 'SCHEDULED' {
  if (discount.startsAt > now) return 'SCHEDULED';
  if (discount.endsAt && discount.endsAt <= now) return 'EXPIRED';
  if (discount.usageLimit !== null && discount.usageCount >= discount.usageLimit) return 'EXPIRED';
  return 'ACTIVE';
}

export function discountNodeView(context: ResolverContext, discount: BasicDiscount) {
  const percent = Math.round(discount.percentage * 100);
  const redeemCode = {
    __typename: 'DiscountRedeemCode',
    id: gid('DiscountRedeemCode', discount.redeemCodeId),
    code: discount.code,
    asyncUsageCount: discount.usageCount,
    createdBy: null,
  };
  const codeDiscount = {
    __typename: 'DiscountCodeBasic',
    title: discount.title,
    status: status(discount, context.core.now()),
    appliesOncePerCustomer: discount.appliesOncePerCustomer,
    asyncUsageCount: discount.usageCount,
    usageLimit: discount.usageLimit,
    startsAt: discount.startsAt.toISOString(),
    endsAt: discount.endsAt?.toISOString() ?? null,
    createdAt: discount.createdAt.toISOString(),
    updatedAt: discount.updatedAt.toISOString(),
    summary: `${percent}% off entire order${discount.appliesOncePerCustomer ? ' • One use per customer' : ''}`,
    shortSummary: `${percent}% off entire order`,
    tags: [],
    hasTimelineComment: false,
    recurringCycleLimit: null,
    discountClasses: ['ORDER'],
    discountClass: 'ORDER',
    totalSales: money(0, context.shop.currency),
    shareableUrls: [],
    minimumRequirement: null,
    context: { __typename: 'DiscountBuyerSelectionAll', all: 'ALL' },
    combinesWith: { orderDiscounts: false, productDiscounts: false, shippingDiscounts: false },
    customerGets: {
      value: { __typename: 'DiscountPercentage', percentage: discount.percentage },
      items: { __typename: 'AllDiscountItems', allItems: true },
      appliesOnOneTimePurchase: true,
      appliesOnSubscription: false,
    },
    codes: (args: ConnectionArgs) =>
      paginate(
        [redeemCode],
        args,
        () => ({ id: discount.redeemCodeId, value: discount.redeemCodeId }),
        (item) => item,
        context.bulk,
      ),
    codesCount: count(1),
  };
  return { __typename: 'DiscountCodeNode', id: gid('DiscountCodeNode', discount.id), codeDiscount };
}

export function findDiscountByCode(context: ResolverContext, code: string): BasicDiscount | undefined {
  const wanted = code.toLowerCase();
  return [...context.shop.discounts.values()].find((discount) => discount.code.toLowerCase() === wanted);
}

function findDiscount(context: ResolverContext, id: string): BasicDiscount | undefined {
  const parsed = parseGid(id);
  return parsed?.kind === 'DiscountCodeNode' ? context.shop.discounts.get(parsed.id) : undefined;
}

/** Rejects the input shapes the stand-in does not model, loudly. */
function refuseUnmodelled(input: BasicCodeDiscountInput): void {
  const value = input.customerGets?.value;
  if (value?.discountAmount || value?.discountOnQuantity)
    throw notImplemented('fixed-amount and quantity discounts (customerGets.value.percentage only)');
  const items = input.customerGets?.items;
  if (items?.products || items?.collections) throw notImplemented('product and collection discounts (customerGets.items.all only)');
  if (input.context?.customers || input.context?.customerSegments || input.context?.markets)
    throw notImplemented('discount contexts other than all buyers');
  if (input.minimumRequirement) throw notImplemented('minimumRequirement');
}

/** Checks what Shopify checks on a create (all fields) or an update (the fields given). */
function validate(context: ResolverContext, input: BasicCodeDiscountInput, existing: BasicDiscount | null): DiscountUserError[] {
  const errors: DiscountUserError[] = [];
  const creating = existing === null;
  if ((creating || input.title !== undefined) && !input.title?.trim()) errors.push(userError(['title'], "Title can't be blank", 'BLANK'));
  if (creating || input.code !== undefined) {
    const code = input.code?.trim() ?? '';
    if (!code) errors.push(userError(['code'], "Code can't be blank", 'BLANK'));
    else if (code.length > MAX_CODE_LENGTH)
      errors.push(userError(['code'], `Code is too long (maximum is ${MAX_CODE_LENGTH} characters)`, 'TOO_LONG'));
    else if (/[\n\r]/.test(code)) errors.push(userError(['code'], 'Code cannot contain newline characters.', 'INVALID'));
    else {
      const holder = findDiscountByCode(context, code);
      if (holder && holder !== existing) errors.push(userError(['code'], 'Code must be unique. Please try a different code.', 'TAKEN'));
    }
  }
  if (creating && !input.startsAt) errors.push(userError(['startsAt'], "Starts at can't be blank", 'BLANK'));
  for (const name of ['startsAt', 'endsAt'] as const) {
    const value = input[name];
    if (value && Number.isNaN(Date.parse(value)))
      errors.push(userError([name], `${name === 'startsAt' ? 'Starts at' : 'Ends at'} is invalid`, 'INVALID'));
  }
  const startsAt = input.startsAt ? new Date(input.startsAt) : existing?.startsAt;
  const endsAt = input.endsAt === undefined ? existing?.endsAt : input.endsAt ? new Date(input.endsAt) : null;
  if (startsAt && endsAt && endsAt <= startsAt)
    errors.push(userError(['endsAt'], 'Ends at needs to be after starts_at', 'END_DATE_BEFORE_START_DATE'));
  if (creating && !input.customerGets) errors.push(userError(['customerGets'], "Customer gets can't be blank", 'BLANK'));
  if (input.customerGets) {
    const percentage = input.customerGets.value?.percentage;
    if (percentage === undefined || percentage === null) errors.push(userError(['customerGets', 'value'], "Value can't be blank", 'BLANK'));
    else if (percentage <= 0 || percentage > 1)
      errors.push(userError(['customerGets', 'value', 'percentage'], 'Value must be between 0.0 and 1.0', 'VALUE_OUTSIDE_RANGE'));
    if (!input.customerGets.items?.all) errors.push(userError(['customerGets', 'items'], 'Items must be specified', 'BLANK'));
  }
  if (input.context && input.customerSelection)
    errors.push(userError(['context'], 'Only one of context or customerSelection can be provided.', 'INVALID'));
  if (input.usageLimit !== undefined && input.usageLimit !== null && input.usageLimit < 1)
    errors.push(userError(['usageLimit'], 'Usage limit must be greater than 0', 'GREATER_THAN'));
  return errors;
}

export function discountCodeBasicCreate(context: ResolverContext, args: { basicCodeDiscount: BasicCodeDiscountInput }) {
  const input = args.basicCodeDiscount;
  refuseUnmodelled(input);
  const userErrors = validate(context, input, null);
  if (userErrors.length) return { codeDiscountNode: null, userErrors };
  const now = context.core.now();
  const discount: BasicDiscount = {
    id: context.core.ids.next('DiscountCodeNode'),
    redeemCodeId: context.core.ids.next('DiscountRedeemCode'),
    title: input.title!.trim(),
    code: input.code!.trim(),
    percentage: input.customerGets!.value!.percentage!,
    appliesOncePerCustomer: input.appliesOncePerCustomer ?? false,
    usageLimit: input.usageLimit ?? null,
    startsAt: new Date(input.startsAt!),
    endsAt: input.endsAt ? new Date(input.endsAt) : null,
    createdAt: now,
    updatedAt: now,
    usageCount: 0,
    usedBy: new Set(),
  };
  context.shop.discounts.set(discount.id, discount);
  return { codeDiscountNode: discountNodeView(context, discount), userErrors: [] };
}

const missingDiscount = () => ({ field: ['id'], message: 'Discount does not exist', code: 'INVALID', extraInfo: null });

export function discountCodeBasicUpdate(context: ResolverContext, args: { id: string; basicCodeDiscount: BasicCodeDiscountInput }) {
  const discount = findDiscount(context, args.id);
  if (!discount) return { codeDiscountNode: null, userErrors: [missingDiscount()] };
  const input = args.basicCodeDiscount;
  refuseUnmodelled(input);
  const userErrors = validate(context, input, discount);
  if (userErrors.length) return { codeDiscountNode: null, userErrors };
  if (input.title) discount.title = input.title.trim();
  if (input.code) discount.code = input.code.trim();
  if (input.customerGets?.value?.percentage) discount.percentage = input.customerGets.value.percentage;
  if (input.appliesOncePerCustomer !== undefined && input.appliesOncePerCustomer !== null)
    discount.appliesOncePerCustomer = input.appliesOncePerCustomer;
  if (input.usageLimit !== undefined) discount.usageLimit = input.usageLimit;
  if (input.startsAt) discount.startsAt = new Date(input.startsAt);
  if (input.endsAt !== undefined) discount.endsAt = input.endsAt ? new Date(input.endsAt) : null;
  discount.updatedAt = context.core.now();
  return { codeDiscountNode: discountNodeView(context, discount), userErrors: [] };
}

export function discountCodeDelete(context: ResolverContext, args: { id: string }) {
  const discount = findDiscount(context, args.id);
  if (!discount) return { deletedCodeDiscountId: null, userErrors: [missingDiscount()] };
  context.shop.discounts.delete(discount.id);
  return { deletedCodeDiscountId: args.id, userErrors: [] };
}

export function codeDiscountNode(context: ResolverContext, id: string) {
  const discount = findDiscount(context, id);
  return discount ? discountNodeView(context, discount) : null;
}
