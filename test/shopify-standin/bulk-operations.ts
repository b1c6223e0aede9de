import { getNamedType, TypeInfo, visit, visitWithTypeInfo, type GraphQLSchema } from 'graphql';
import type { ResolverContext } from './core.js';
import { prepare, type ExecutionOutcome, type PreparedDocument } from './executor.js';
import { gid, parseGid, type BulkOperation, type ShopRecord } from './model.js';

/**
 * Bulk query operations: bulkOperationRunQuery validates the inner query against the schema and
 * Shopify's bulk rules (at least one connection, at most five, nested at most two deep), runs it
 * over every object, and writes the result as JSONL, one object a line, nested connections' objects
 * on lines of their own with `__parentId`. The result is made at once; the operation reports
 * RUNNING on the first read after its creation (so a polling loop runs at least once) and, when
 * the stand-in has a bulk speed, until that many objects a second would have been written: every
 * line counts, a nested connection's objects too (`objectCount`, a running total while it runs).
 * From 2026-01 an app may run up to five bulk query operations per shop at once (Shopify's
 * changelog "Faster bulk operations", 2025-12-15); a sixth is refused with `LIMIT_REACHED`.
 */
const MAX_CONNECTIONS = 5;
const MAX_CONNECTION_DEPTH = 2;
export const MAX_CONCURRENT_BULK_QUERIES = 5;

type UserError = { field: string[]; message: string; code: 'INVALID' | 'OPERATION_IN_PROGRESS' | 'LIMIT_REACHED' };

function connectionShape(schema: GraphQLSchema, prepared: PreparedDocument): { count: number; depth: number } {
  const typeInfo = new TypeInfo(schema);
  let count = 0;
  let depth = 0;
  let maxDepth = 0;
  const isConnection = () => {
    const type = typeInfo.getType();
    return Boolean(type && getNamedType(type).name.endsWith('Connection'));
  };
  const stack: boolean[] = [];
  visit(
    prepared.operation,
    visitWithTypeInfo(typeInfo, {
      Field: {
        enter() {
          const connection = isConnection();
          stack.push(connection);
          if (connection) {
            count += 1;
            depth += 1;
            maxDepth = Math.max(maxDepth, depth);
          }
        },
        leave() {
          if (stack.pop()) depth -= 1;
        },
      },
    }),
  );
  return { count, depth: maxDepth };
}

const asRecord = (value: unknown) =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

function connectionNodes(value: unknown): unknown[] | null {
  const record = asRecord(value);
  if (!record) return null;
  if (Array.isArray(record.nodes)) return record.nodes;
  if (Array.isArray(record.edges)) return record.edges.map((edge) => asRecord(edge)?.node);
  return null;
}

/** Shopify's JSONL layout: each object a line; a nested connection's objects follow with __parentId. */
export function toJsonl(data: Record<string, unknown>): { jsonl: string; objectCount: number; rootObjectCount: number } {
  const lines: string[] = [];
  const emit = (node: unknown, parentId: string | null) => {
    const record = asRecord(node);
    if (!record) return;
    const line: Record<string, unknown> = {};
    const children: unknown[][] = [];
    for (const [key, value] of Object.entries(record)) {
      const nodes = connectionNodes(value);
      if (nodes) children.push(nodes);
      else line[key] = value;
    }
    if (parentId !== null) line.__parentId = parentId;
    lines.push(JSON.stringify(line));
    for (const nodes of children) for (const child of nodes) emit(child, typeof record.id === 'string' ? record.id : null);
  };
  let rootObjectCount = 0;
  for (const value of Object.values(data)) {
    const nodes = connectionNodes(value) ?? [value];
    rootObjectCount += nodes.length;
    for (const node of nodes) emit(node, null);
  }
  return { jsonl: lines.length ? `${lines.join('\n')}\n` : '', objectCount: lines.length, rootObjectCount };
}

/** Whether the operation still counts against the shop's concurrent bulk queries: it reports RUNNING to a read now. */
export function isRunning(operation: BulkOperation, now: number): boolean {
  return operation.status !== 'FAILED' && (!operation.polled || now < operation.readyAt);
}

/** The objects written by `now`: all of them once ready, else as many as the bulk speed wrote since creation. */
function objectsWritten(operation: BulkOperation, now: number): number {
  if (now >= operation.readyAt) return operation.objectCount;
  const elapsed = now - operation.createdAt.getTime();
  const total = operation.readyAt - operation.createdAt.getTime();
  return total > 0 ? Math.floor((operation.objectCount * elapsed) / total) : 0;
}

export function bulkOperationView(context: ResolverContext, operation: BulkOperation, asCreated = false) {
  const now = context.core.now().getTime();
  const reportRunning = !asCreated && isRunning(operation, now);
  if (!asCreated) operation.polled = true;
  const done = !asCreated && !reportRunning;
  const status = asCreated ? 'CREATED' : reportRunning ? 'RUNNING' : operation.status;
  return {
    __typename: 'BulkOperation',
    id: gid('BulkOperation', operation.id),
    type: 'QUERY',
    status,
    query: operation.query,
    createdAt: operation.createdAt.toISOString(),
    completedAt: done ? (operation.completedAt?.toISOString() ?? null) : null,
    errorCode: done && operation.status === 'FAILED' ? 'INTERNAL_SERVER_ERROR' : null,
    // UnsignedInt64 travels as a string.
    objectCount: String(done ? operation.objectCount : asCreated ? 0 : objectsWritten(operation, now)),
    rootObjectCount: String(done ? operation.rootObjectCount : 0),
    fileSize: done && operation.jsonl !== null ? String(Buffer.byteLength(operation.jsonl)) : null,
    url: done && operation.jsonl !== null && operation.objectCount > 0 ? context.core.bulkResultUrl(context.shop, operation.id) : null,
    partialDataUrl: null,
  };
}

export function findBulkOperation(shop: ShopRecord, id: string): BulkOperation | undefined {
  const parsed = parseGid(id);
  return parsed?.kind === 'BulkOperation' ? shop.bulkOperations.find((operation) => operation.id === parsed.id) : undefined;
}

export function currentBulkOperation(context: ResolverContext, type: string | null | undefined) {
  if (type === 'MUTATION') return null;
  const latest = context.shop.bulkOperations.at(-1);
  return latest ? bulkOperationView(context, latest) : null;
}

export async function bulkOperationRunQuery(
  context: ResolverContext,
  schema: GraphQLSchema,
  args: { query: string; groupObjects: boolean },
  runInBulk: (prepared: PreparedDocument) => Promise<ExecutionOutcome>,
) {
  const refuse = (error: UserError) => ({ bulkOperation: null, userErrors: [error] });
  const now = context.core.now().getTime();
  const running = context.shop.bulkOperations.filter((operation) => isRunning(operation, now));
  if (running.length >= MAX_CONCURRENT_BULK_QUERIES) {
    // The enum's own wording: Shopify publishes the limit, not the message of the operation it refuses.
    return refuse({ field: ['query'], message: 'Bulk operations limit reached. Please try again later.', code: 'LIMIT_REACHED' });
  }
  const prepared = prepare(schema, args.query, null);
  if (!prepared.ok) return refuse({ field: ['query'], message: `Invalid bulk query: ${prepared.errors[0]!.message}`, code: 'INVALID' });
  if (prepared.prepared.operation.operation !== 'query')
    return refuse({ field: ['query'], message: 'Invalid bulk query: only queries can run as a bulk query operation', code: 'INVALID' });
  const shape = connectionShape(schema, prepared.prepared);
  if (shape.count === 0)
    return refuse({ field: ['query'], message: 'Bulk queries must contain at least one connection.', code: 'INVALID' });
  if (shape.count > MAX_CONNECTIONS)
    return refuse({ field: ['query'], message: `Bulk queries cannot contain more than ${MAX_CONNECTIONS} connections.`, code: 'INVALID' });
  if (shape.depth > MAX_CONNECTION_DEPTH)
    return refuse({
      field: ['query'],
      message: `Bulk queries cannot contain connections with a nesting depth greater than ${MAX_CONNECTION_DEPTH}.`,
      code: 'INVALID',
    });

  const operation: BulkOperation = {
    id: context.core.ids.next('BulkOperation'),
    query: args.query,
    status: 'CREATED',
    createdAt: context.core.now(),
    completedAt: null,
    objectCount: 0,
    rootObjectCount: 0,
    jsonl: null,
    polled: false,
    readyAt: now,
  };
  context.shop.bulkOperations.push(operation);
  const outcome = await runInBulk(prepared.prepared);
  if (outcome.errors.length || !outcome.data) {
    operation.status = 'FAILED';
  } else {
    const result = toJsonl(outcome.data);
    operation.status = 'COMPLETED';
    operation.jsonl = result.jsonl;
    operation.objectCount = result.objectCount;
    operation.rootObjectCount = result.rootObjectCount;
    const speed = context.core.bulkObjectsPerSecond;
    if (speed) operation.readyAt = now + Math.ceil((result.objectCount / speed) * 1000);
  }
  operation.completedAt = new Date(operation.readyAt);
  return { bulkOperation: bulkOperationView(context, operation, true), userErrors: [] };
}
