import {
  getNamedType,
  isLeafType,
  isObjectType,
  isInterfaceType,
  Kind,
  valueFromASTUntyped,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/**
 * Query cost as Shopify documents it for the GraphQL Admin API
 * (https://shopify.dev/docs/apps/build/apis/graphql-admin/rate-limits, "Cost calculation"):
 *   scalar and enum fields 0; an object 1; an interface or union the most expensive of its
 *   possible selections; a connection 2 plus its page size (first or last) times the cost of one
 *   of its objects; each mutation field 10.
 * `requested` prices the page sizes asked for; `actual` walks the response and prices what came
 * back, so a short last page costs less (Shopify refunds the difference to the bucket).
 * Approximate where Shopify's own calculator has per-field overrides (a few fields cost more).
 */
export const MUTATION_COST = 10;
const CONNECTION_BASE_COST = 2;

type ResultValue = unknown;
interface Walk {
  schema: GraphQLSchema;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

function isConnectionType(type: GraphQLNamedType): boolean {
  return isObjectType(type) && type.name.endsWith('Connection') && 'pageInfo' in type.getFields();
}

function fieldDefinition(type: GraphQLNamedType, name: string): GraphQLField<unknown, unknown> | undefined {
  return isObjectType(type) || isInterfaceType(type) ? type.getFields()[name] : undefined;
}

function pageSizeOf(field: FieldNode, variables: Record<string, unknown>): number {
  for (const name of ['first', 'last']) {
    const argument = field.arguments?.find((candidate) => candidate.name.value === name);
    if (argument) {
      const value = valueFromASTUntyped(argument.value, variables);
      if (typeof value === 'number') return Math.max(0, value);
    }
  }
  return 0;
}

const asRecord = (value: ResultValue): Record<string, unknown> | null =>
  value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;

/** Cost of a selection set on `parent`; with `value` (the response object) it is the actual cost. */
function selectionCost(walk: Walk, selectionSet: SelectionSetNode, parent: GraphQLNamedType, value: ResultValue, actual: boolean): number {
  let direct = 0;
  const alternatives = new Map<string, number>();
  const addAlternative = (typeName: string, cost: number) => alternatives.set(typeName, (alternatives.get(typeName) ?? 0) + cost);
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FIELD) {
      direct += fieldCost(walk, selection, parent, value, actual);
      continue;
    }
    const fragment = selection.kind === Kind.FRAGMENT_SPREAD ? walk.fragments.get(selection.name.value) : selection;
    if (!fragment) continue;
    const conditionName = fragment.typeCondition?.name.value ?? parent.name;
    const condition = walk.schema.getType(conditionName) ?? parent;
    const cost = selectionCost(walk, fragment.selectionSet, condition, value, actual);
    if (conditionName === parent.name) direct += cost;
    else addAlternative(conditionName, cost);
  }
  return direct + Math.max(0, ...alternatives.values());
}

function fieldCost(walk: Walk, field: FieldNode, parent: GraphQLNamedType, parentValue: ResultValue, actual: boolean): number {
  const definition = fieldDefinition(parent, field.name.value);
  if (!definition || !field.selectionSet) return 0;
  const type = getNamedType(definition.type);
  if (isLeafType(type)) return 0;
  const key = field.alias?.value ?? field.name.value;
  const value = actual ? asRecord(parentValue)?.[key] : undefined;
  if (actual && (value === null || value === undefined)) return 0;
  if (isConnectionType(type)) return connectionCost(walk, field, type, value, actual);
  if (actual && Array.isArray(value)) {
    return value.reduce<number>((sum, element) => sum + 1 + selectionCost(walk, field.selectionSet!, type, element, true), 0);
  }
  return 1 + selectionCost(walk, field.selectionSet, type, value, actual);
}

/** 2 + size × (cost of one node), where the node is what edges.node or nodes select. */
function connectionCost(walk: Walk, field: FieldNode, type: GraphQLNamedType, value: ResultValue, actual: boolean): number {
  const connection = asRecord(value);
  let perNodeRequested = 0;
  let actualNodes = 0;
  for (const selection of field.selectionSet!.selections) {
    if (selection.kind !== Kind.FIELD || !selection.selectionSet) continue;
    const name = selection.name.value;
    const key = selection.alias?.value ?? name;
    const definition = fieldDefinition(type, name);
    if (!definition) continue;
    if (name === 'nodes') {
      const nodeType = getNamedType(definition.type);
      if (actual) {
        for (const node of (connection?.[key] as unknown[] | undefined) ?? [])
          actualNodes += 1 + selectionCost(walk, selection.selectionSet, nodeType, node, true);
      } else {
        perNodeRequested = Math.max(perNodeRequested, 1 + selectionCost(walk, selection.selectionSet, nodeType, undefined, false));
      }
    } else if (name === 'edges') {
      const edgeType = getNamedType(definition.type);
      for (const edgeSelection of selection.selectionSet.selections) {
        if (edgeSelection.kind !== Kind.FIELD || edgeSelection.name.value !== 'node' || !edgeSelection.selectionSet) continue;
        const nodeType = getNamedType(fieldDefinition(edgeType, 'node')!.type);
        const nodeKey = edgeSelection.alias?.value ?? 'node';
        if (actual) {
          for (const edge of (connection?.[key] as unknown[] | undefined) ?? []) {
            actualNodes += 1 + selectionCost(walk, edgeSelection.selectionSet, nodeType, asRecord(edge)?.[nodeKey], true);
          }
        } else {
          perNodeRequested = Math.max(perNodeRequested, 1 + selectionCost(walk, edgeSelection.selectionSet, nodeType, undefined, false));
        }
      }
    }
  }
  if (actual) return CONNECTION_BASE_COST + actualNodes;
  return CONNECTION_BASE_COST + pageSizeOf(field, walk.variables) * Math.max(1, perNodeRequested);
}

export interface CostInput {
  schema: GraphQLSchema;
  operation: OperationDefinitionNode;
  fragments: Map<string, FragmentDefinitionNode>;
  variables: Record<string, unknown>;
}

export function requestedCost(input: CostInput): number {
  if (input.operation.operation === 'mutation') return MUTATION_COST * input.operation.selectionSet.selections.length;
  return selectionCost(input, input.operation.selectionSet, input.schema.getQueryType()!, undefined, false);
}

export function actualCost(input: CostInput, data: unknown): number {
  if (input.operation.operation === 'mutation') return MUTATION_COST * input.operation.selectionSet.selections.length;
  return selectionCost(input, input.operation.selectionSet, input.schema.getQueryType()!, data, true);
}
