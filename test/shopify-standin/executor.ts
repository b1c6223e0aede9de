import {
  execute,
  GraphQLError,
  Kind,
  parse,
  print,
  TypeInfo,
  validate,
  visit,
  visitWithTypeInfo,
  type DocumentNode,
  type ExecutionResult,
  type FragmentDefinitionNode,
  type GraphQLFieldResolver,
  type GraphQLSchema,
  type GraphQLTypeResolver,
  type OperationDefinitionNode,
  type ValueNode,
} from 'graphql';
import { notImplemented } from './errors.js';

/**
 * Parses, validates and runs a document against the Admin API schema the way Shopify answers:
 * a document that does not parse or validate is not run at all, and its errors read like
 * Shopify's (graphql-ruby's wording and extensions codes for the common mistakes).
 */
export interface ShopifyErrorJson {
  message: string;
  locations?: Array<{ line: number; column: number }>;
  path?: Array<string | number>;
  extensions?: Record<string, unknown>;
}

export interface PreparedDocument {
  document: DocumentNode;
  operation: OperationDefinitionNode;
  fragments: Map<string, FragmentDefinitionNode>;
}

function toJson(error: GraphQLError, override: Partial<ShopifyErrorJson> = {}): ShopifyErrorJson {
  const json: ShopifyErrorJson = { message: error.message };
  if (error.locations?.length) json.locations = error.locations.map(({ line, column }) => ({ line, column }));
  if (error.path?.length) json.path = [...error.path];
  if (error.extensions && Object.keys(error.extensions).length) json.extensions = { ...error.extensions };
  return { ...json, ...override };
}

interface ArgumentSite {
  fieldName: string;
  argumentName: string;
  type: string;
}

/** Which argument each literal value belongs to, so a wrong literal can be reported by name. */
function argumentSites(schema: GraphQLSchema, document: DocumentNode): Map<ValueNode, ArgumentSite> {
  const sites = new Map<ValueNode, ArgumentSite>();
  const typeInfo = new TypeInfo(schema);
  const mark = (value: ValueNode, site: ArgumentSite) => {
    sites.set(value, site);
    if (value.kind === Kind.LIST) for (const item of value.values) mark(item, site);
    if (value.kind === Kind.OBJECT) for (const field of value.fields) mark(field.value, site);
  };
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const argument = typeInfo.getArgument();
        const field = typeInfo.getFieldDef();
        if (argument && field) mark(node.value, { fieldName: field.name, argumentName: argument.name, type: String(argument.type) });
      },
    }),
  );
  return sites;
}

/** graphql-js's validation messages, reworded as Shopify (graphql-ruby) words them. */
function shopifyValidationError(error: GraphQLError, sites: Map<ValueNode, ArgumentSite>): ShopifyErrorJson {
  const message = error.message;
  let match = /^Cannot query field "(\w+)" on type "(\w+)"\./.exec(message);
  if (match)
    return toJson(error, {
      message: `Field '${match[1]}' doesn't exist on type '${match[2]}'`,
      extensions: { code: 'undefinedField', typeName: match[2], fieldName: match[1] },
    });
  match = /^Unknown argument "(\w+)" on field "\w+\.(\w+)"\./.exec(message);
  if (match)
    return toJson(error, {
      message: `Field '${match[2]}' doesn't accept argument '${match[1]}'`,
      extensions: { code: 'argumentNotAccepted', name: match[2], typeName: 'Field', argumentName: match[1] },
    });
  match = /^Field "(\w+)" argument "(\w+)" of type "(.+)" is required, but it was not provided\./.exec(message);
  if (match)
    return toJson(error, {
      message: `Field '${match[1]}' is missing required arguments: ${match[2]}`,
      extensions: { code: 'missingRequiredArguments', className: 'Field', name: match[1], arguments: match[2] },
    });
  match = /^Field "(\w+)" of type "(.+)" must have a selection of subfields/.exec(message);
  if (match) {
    const typeName = match[2]!.replace(/[[\]!]/g, '');
    return toJson(error, {
      message:
        `Field must have selections (field '${match[1]}' returns ${typeName} but has no selections. ` +
        `Did you mean '${match[1]} { ... }'?)`,
      extensions: { code: 'selectionMismatch', nodeName: `field '${match[1]}'`, typeName },
    });
  }
  match = /^Field "(\w+)" must not have a selection since type "(.+)" has no subfields\./.exec(message);
  if (match) {
    const typeName = match[2]!.replace(/!/g, '');
    const node = error.nodes?.[0];
    const selected =
      node?.kind === Kind.FIELD
        ? (node.selectionSet?.selections ?? [])
            .map((selection) => (selection.kind === Kind.FIELD ? selection.name.value : '...'))
            .join(', ')
        : '';
    return toJson(error, {
      message: `Selections can't be made on scalars (field '${match[1]}' returns ${typeName} but has selections [${selected}])`,
      extensions: { code: 'selectionMismatch', nodeName: `field '${match[1]}'`, typeName },
    });
  }
  const valueNode = error.nodes?.[0];
  const site = valueNode ? sites.get(valueNode as ValueNode) : undefined;
  if (site && valueNode) {
    return toJson(error, {
      message:
        `Argument '${site.argumentName}' on Field '${site.fieldName}' has an invalid value (${print(valueNode)}). ` +
        `Expected type '${site.type}'.`,
      extensions: { code: 'argumentLiteralsIncompatible', typeName: 'Field', argumentName: site.argumentName },
    });
  }
  return toJson(error);
}

/** A variable value that cannot be coerced, in Shopify's words. */
function shopifyExecutionError(error: GraphQLError): ShopifyErrorJson {
  const match = /^Variable "\$(\w+)" got invalid value (.*?); (.*)$/s.exec(error.message);
  if (match) {
    const definition = error.nodes?.[0];
    const type = definition && definition.kind === Kind.VARIABLE_DEFINITION ? print(definition.type) : 'unknown';
    return toJson(error, {
      message: `Variable $${match[1]} of type ${type} was provided invalid value`,
      extensions: { code: 'INVALID_VARIABLE', value: safeParse(match[2]!), problems: [{ path: [], explanation: match[3] }] },
    });
  }
  const required = /^Variable "\$(\w+)" of required type "(.+)" was not provided\.$/.exec(error.message);
  if (required) {
    return toJson(error, {
      message: `Variable $${required[1]} of type ${required[2]} was provided invalid value`,
      extensions: { code: 'INVALID_VARIABLE', value: null, problems: [{ path: [], explanation: 'Expected value to not be null' }] },
    });
  }
  return toJson(error);
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export type Prepared = { ok: true; prepared: PreparedDocument } | { ok: false; errors: ShopifyErrorJson[] };

/**
 * Documents already prepared against a schema, by operation name and text: the service sends the
 * same few documents thousands of times in a run, and validating one against the Admin schema
 * costs far more than answering it. A prepared document is only read, never changed.
 */
const preparedDocuments = new WeakMap<GraphQLSchema, Map<string, Prepared>>();
/** Past this many distinct documents (a test sending made-up ones), new ones are prepared each time. */
const MAX_PREPARED_DOCUMENTS = 2_000;

export function prepare(schema: GraphQLSchema, source: string, operationName: string | null | undefined): Prepared {
  let known = preparedDocuments.get(schema);
  if (!known) {
    known = new Map();
    preparedDocuments.set(schema, known);
  }
  const key = `${operationName ?? ''}\n${source}`;
  const cached = known.get(key);
  if (cached) return cached;
  const prepared = prepareDocument(schema, source, operationName);
  if (known.size < MAX_PREPARED_DOCUMENTS) known.set(key, prepared);
  return prepared;
}

function prepareDocument(schema: GraphQLSchema, source: string, operationName: string | null | undefined): Prepared {
  let document: DocumentNode;
  try {
    document = parse(source);
  } catch (error) {
    if (error instanceof GraphQLError) return { ok: false, errors: [toJson(error, { extensions: { code: 'parseError' } })] };
    throw error;
  }
  const validationErrors = validate(schema, document);
  if (validationErrors.length) {
    const sites = argumentSites(schema, document);
    return { ok: false, errors: validationErrors.map((error) => shopifyValidationError(error, sites)) };
  }
  const operations = document.definitions.filter(
    (definition): definition is OperationDefinitionNode => definition.kind === Kind.OPERATION_DEFINITION,
  );
  const operation = operationName
    ? operations.find((candidate) => candidate.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  if (!operation) {
    const message = operationName ? `No operation named "${operationName}"` : 'An operation name is required';
    return { ok: false, errors: [{ message, extensions: { code: 'OPERATION_NAME_REQUIRED' } }] };
  }
  if (operation.operation === 'subscription') return { ok: false, errors: [{ message: 'Subscriptions are not supported' }] };
  const fragments = new Map(
    document.definitions
      .filter((definition): definition is FragmentDefinitionNode => definition.kind === Kind.FRAGMENT_DEFINITION)
      .map((fragment) => [fragment.name.value, fragment]),
  );
  return { ok: true, prepared: { document, operation, fragments } };
}

/**
 * Every field is read from the view object by its name: a value, or a method called with the
 * field's arguments. A field the view does not have is not implemented, and says so.
 */
const strictFieldResolver: GraphQLFieldResolver<unknown, unknown> = (source, args, context, info) => {
  if (source !== null && typeof source === 'object' && Object.hasOwn(source, info.fieldName)) {
    const value = (source as Record<string, unknown>)[info.fieldName];
    return typeof value === 'function' ? (value as (args: unknown, context: unknown) => unknown)(args, context) : value;
  }
  throw notImplemented(`${info.parentType.name}.${info.fieldName}`);
};

const typenameResolver: GraphQLTypeResolver<unknown, unknown> = (value, _context, info, abstractType) => {
  const typename = (value as { __typename?: string } | null)?.__typename;
  if (!typename) throw notImplemented(`a concrete type for ${abstractType.name} at ${info.fieldName}`);
  return typename;
};

export interface ExecutionOutcome {
  data: Record<string, unknown> | null | undefined;
  errors: ShopifyErrorJson[];
}

export async function run(
  schema: GraphQLSchema,
  prepared: PreparedDocument,
  rootValue: Record<string, unknown>,
  context: unknown,
  variables: Record<string, unknown>,
): Promise<ExecutionOutcome> {
  const result: ExecutionResult = await execute({
    schema,
    document: prepared.document,
    operationName: prepared.operation.name?.value,
    rootValue,
    contextValue: context,
    variableValues: variables,
    fieldResolver: strictFieldResolver,
    typeResolver: typenameResolver,
  });
  return { data: result.data as Record<string, unknown> | null | undefined, errors: (result.errors ?? []).map(shopifyExecutionError) };
}
