import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { Ajv, type ErrorObject } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { pino } from 'pino';
import type { TSchema } from 'typebox';
import { ConfigError, loadConfig, type Config } from './config.js';
import { jobBounds, openDatabase, type DatabaseHandle, type Db } from './db/database.js';
import { migrateToLatest } from './db/migrator.js';
import { InvalidationBus } from './cache/invalidation.js';
import { ApiError } from './http/errors.js';
import { ONE_LINE_MESSAGE, ONE_LINE_PATTERN } from './http/schemas.js';
import { FixtureError, loadFixtureFile } from './demo/loader.js';
import { acquireDataDirLock, DataDirLockedError } from './admin/data-dir-lock.js';
import { companyWithKeys, platformWithKeys } from './admin/service.js';
import { issueBrandKey, issuePlatformKey, listPlatformCompanies, revokeKey } from './auth/service.js';
import { createCompany, updateCompany } from './companies/service.js';
import { createPlatform, listPlatformBrands, listPlatforms, setPlatformActive, updatePlatform } from './platforms/service.js';
import type { ServiceContext } from './service-context.js';
import { CreatePlatformBody, UpdatePlatformBody } from './admin/schemas.js';
import { CreateCompanyBody, UpdateCompanyBody } from './companies/schemas.js';
import { listOAuthClients, registerOAuthClient } from './oauth/service.js';
import { RegisterClientBody } from './oauth/schemas.js';
import { AdjustmentBody } from './orders/schemas.js';
import { commercePlatformsFor } from './commerce/registry.js';
import { setSandboxOwner } from './commerce/sandbox/service.js';
import { closeEndedMonths, monthlyStatement, postAdjustment, statementCsv } from './orders/statements.js';

/**
 * Support's command line: the same service functions as the admin API, run directly on the
 * database chosen by DATABASE_URL (PostgreSQL) or DATA_DIR (PGlite). Prints JSON.
 */

const USAGE = `Usage: npm run cli -- <command> [arguments] [--flags]

  migrate                                   apply pending migrations
  seed <file>                               load a fixture file (docs/fixtures.md)

  platform list
  platform get <platformId>
  platform create --name <name> [--id <uuid>] [--inactive] [--offer-types post-purchase]
                  [--approved-origins <origin,origin>] [--plugin-page-url <url>]
  platform update <platformId> [--name ..] [--offer-types ..] [--approved-origins ..] [--plugin-page-url <url>|none]
  platform deactivate <platformId>
  platform activate <platformId>
  platform brands <platformId> [--domain <domain>]
  platform companies <platformId>
  platform-key issue <platformId> [--expires-at <ISO 8601 date-time>]
  platform-key revoke <keyId>

  company get <companyId>
  company create --company-id <id> --domain <domain> --business-name <name> [--logo-image-url <url>]
                 [--description ..] [--business-size ..] [--country ..] [--categories <a,b>]
                 [--product-count <n>] [--platform <commerce platform>]
  company update <companyId> [the same profile flags; "none" clears a field]
  brand-key issue <companyId> [--name <label>]
  brand-key revoke <keyId>

  oauth-client register --name <name> --redirect-uri <uri> [--redirect-uri <uri> ...]
                        [--confidential [--company-id <companyId>]] [--client-id <id>]
  oauth-client list

  statement <companyId> <YYYY-MM> [--csv]   a brand's monthly statement: commission owed, reversals and net
                                            per currency with every ledger entry (--csv: as the dashboard's CSV)
  adjustment post <companyId> --amount-minor=<n> --currency <ISO 4217> --reason <why> --posted-by <who>
                                            support's manual ledger entry (negative credits the brand); it shows
                                            on the brand's next statement
  statements close                          close every month that ended (the background job does it too)

  sandbox-owner set <domain> --email <email>
                                            set up (or replace) a sandbox store's owner sign-in, test and
                                            dev hosts only; prints the generated password once

Database: DATABASE_URL=postgres://... or PGlite in DATA_DIR (default ./data), which must not be
in use by a running service (use the admin API then). Keys are issued for SERVICE_ENV.
Output is JSON on stdout (CSV where asked); errors go to stderr with exit code 1 (2 for usage errors).`;

class UsageError extends Error {}

/** Output printed as it is, not as JSON (a CSV). */
class TextOutput {
  constructor(readonly text: string) {}
}

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: false, strict: false, coerceTypes: false }));

const kebab = (name: string) => name.replace(/[A-Z]/g, (letter) => `-${letter.toLowerCase()}`);

function describeInputError(error: ErrorObject): string {
  const [field, ...rest] = error.instancePath.split('/').filter(Boolean);
  const params = error.params as Record<string, unknown>;
  if (error.keyword === 'required') return `--${kebab(String(params.missingProperty))} is required`;
  if (error.keyword === 'minProperties') return 'give at least one field to change';
  const where = field ? `--${kebab(field)}${rest.length ? ` item ${Number(rest[0]) + 1}` : ''}` : 'input';
  if (error.keyword === 'enum') return `${where} must be one of ${(params.allowedValues as unknown[]).join(', ')}`;
  if (error.keyword === 'pattern' && params.pattern === ONE_LINE_PATTERN) return `${where} ${ONE_LINE_MESSAGE}`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

/** Flags are checked against the admin API's own body schemas, so both accept the same input. */
function checkInput<T>(schema: TSchema, value: Record<string, unknown>): T {
  const validate = ajv.compile(schema);
  if (!validate(value)) throw new UsageError(describeInputError(validate.errors![0]!));
  return value as T;
}

type Options = NonNullable<ParseArgsConfig['options']>;
const text = (names: string[]): Options => Object.fromEntries(names.map((name) => [name, { type: 'string' as const }]));

const PLATFORM_FLAGS = text(['name', 'offer-types', 'approved-origins', 'plugin-page-url']);
const COMPANY_FLAGS = text([
  'domain',
  'business-name',
  'logo-image-url',
  'description',
  'business-size',
  'country',
  'categories',
  'product-count',
  'platform',
]);

type Flags = Record<string, string | boolean | string[] | undefined>;

function parse(args: string[], options: Options, positionals: string[]) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: Options; allowPositionals: true; strict: true }>>;
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (parsed.positionals.length !== positionals.length) {
    throw new UsageError(`expected ${positionals.length ? positionals.map((p) => `<${p}>`).join(' ') : 'no arguments'}`);
  }
  return { flags: parsed.values as Flags, args: parsed.positionals };
}

const list = (value: string) =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** Turns --kebab-case flags into the body fields; "none" clears a nullable field on update. */
function fieldsFrom(flags: Flags, clearable: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [flag, value] of Object.entries(flags)) {
    if (typeof value !== 'string') continue;
    const field = flag.replace(/-([a-z])/g, (_, letter: string) => letter.toUpperCase());
    if (clearable && value === 'none') out[field] = field === 'categories' || field === 'approvedOrigins' ? [] : null;
    else if (['offerTypes', 'approvedOrigins', 'categories'].includes(field)) out[field] = list(value);
    else if (field === 'productCount') {
      if (!/^\d+$/.test(value)) throw new UsageError('--product-count must be a whole number');
      out[field] = Number(value);
    } else out[field] = value;
  }
  return out;
}

async function run(argv: string[], ctx: ServiceContext, database: DatabaseHandle, config: Config): Promise<unknown> {
  const [command, sub, ...rest] = argv;
  const grouped = [
    'platform',
    'platform-key',
    'company',
    'brand-key',
    'oauth-client',
    'sandbox-owner',
    'adjustment',
    'statements',
  ].includes(command ?? '');
  const key = grouped ? `${command} ${sub ?? ''}`.trim() : command;
  const tail = grouped ? rest : argv.slice(1);
  switch (key) {
    case 'migrate':
      parse(tail, {}, []);
      return { applied: await migrateToLatest(database.db) };
    case 'seed': {
      const { args } = parse(tail, {}, ['file']);
      return { file: args[0], ...(await loadFixtureFile(ctx, args[0]!, { baseUrl: config.baseUrl })) };
    }
    case 'platform list':
      parse(tail, {}, []);
      return listPlatforms(ctx);
    case 'platform get':
      return platformWithKeys(ctx, parse(tail, {}, ['platformId']).args[0]!);
    case 'platform create': {
      const { flags } = parse(tail, { ...PLATFORM_FLAGS, ...text(['id']), inactive: { type: 'boolean' } }, []);
      const body = fieldsFrom({ ...flags, inactive: undefined }, false);
      if (flags.inactive) body.active = false;
      return createPlatform(ctx, checkInput(CreatePlatformBody, body));
    }
    case 'platform update': {
      const { flags, args } = parse(tail, PLATFORM_FLAGS, ['platformId']);
      return updatePlatform(ctx, args[0]!, checkInput(UpdatePlatformBody, fieldsFrom(flags, true)));
    }
    case 'platform deactivate':
    case 'platform activate':
      return setPlatformActive(ctx, parse(tail, {}, ['platformId']).args[0]!, sub === 'activate');
    case 'platform brands': {
      const { flags, args } = parse(tail, text(['domain']), ['platformId']);
      return listPlatformBrands(ctx, args[0]!, flags.domain as string | undefined);
    }
    case 'platform companies':
      return listPlatformCompanies(ctx, parse(tail, {}, ['platformId']).args[0]!);
    case 'platform-key issue': {
      const { flags, args } = parse(tail, text(['expires-at']), ['platformId']);
      let expiresAt: Date | null = null;
      if (typeof flags['expires-at'] === 'string') {
        expiresAt = new Date(flags['expires-at']);
        if (Number.isNaN(expiresAt.getTime())) throw new UsageError('--expires-at must be an ISO 8601 date-time');
        if (expiresAt.getTime() <= Date.now()) throw new UsageError('--expires-at must be in the future');
      }
      return issuePlatformKey(ctx, args[0]!, { expiresAt });
    }
    case 'platform-key revoke':
      return revokeKey(ctx, 'platform', parse(tail, {}, ['keyId']).args[0]!);
    case 'company get':
      return companyWithKeys(ctx, parse(tail, {}, ['companyId']).args[0]!);
    case 'company create': {
      const { flags } = parse(tail, { ...COMPANY_FLAGS, ...text(['company-id']) }, []);
      return createCompany(ctx, checkInput(CreateCompanyBody, fieldsFrom(flags, false)));
    }
    case 'company update': {
      const { flags, args } = parse(tail, COMPANY_FLAGS, ['companyId']);
      return updateCompany(ctx, args[0]!, checkInput(UpdateCompanyBody, fieldsFrom(flags, true)));
    }
    case 'brand-key issue': {
      const { flags, args } = parse(tail, text(['name']), ['companyId']);
      return issueBrandKey(ctx, args[0]!, { name: flags.name as string | undefined });
    }
    case 'brand-key revoke':
      return revokeKey(ctx, 'brand', parse(tail, {}, ['keyId']).args[0]!);
    case 'oauth-client register': {
      const options = {
        ...text(['name', 'client-id', 'company-id']),
        'redirect-uri': { type: 'string', multiple: true },
        confidential: { type: 'boolean' },
      } satisfies Options;
      const { flags } = parse(tail, options, []);
      const body = {
        ...fieldsFrom(flags, false),
        redirectUris: flags['redirect-uri'] ?? [],
        confidential: flags.confidential === true,
      };
      return registerOAuthClient(ctx, checkInput(RegisterClientBody, body));
    }
    case 'oauth-client list':
      parse(tail, {}, []);
      return { data: await listOAuthClients(ctx) };
    case 'statement': {
      const { flags, args } = parse(tail, { csv: { type: 'boolean' } }, ['companyId', 'month']);
      const statement = await monthlyStatement(ctx, args[0]!, args[1]!);
      return flags.csv ? new TextOutput(statementCsv(statement)) : statement;
    }
    case 'adjustment post': {
      const { flags, args } = parse(tail, text(['amount-minor', 'currency', 'reason', 'posted-by']), ['companyId']);
      const amount = flags['amount-minor'];
      if (typeof amount !== 'string' || !/^-?\d+$/.test(amount))
        throw new UsageError('--amount-minor must be a whole number of minor units');
      const body = { amountMinor: Number(amount), currency: flags.currency, reason: flags.reason, postedBy: flags['posted-by'] };
      return postAdjustment(ctx, args[0]!, checkInput(AdjustmentBody, body));
    }
    case 'statements close':
      parse(tail, {}, []);
      return { closed: await closeEndedMonths(ctx.db) };
    case 'sandbox-owner set': {
      const { flags, args } = parse(tail, text(['email']), ['domain']);
      if (typeof flags.email !== 'string') throw new UsageError('--email is required');
      const sandbox = commercePlatformsFor(config, ctx.db).sandbox;
      if (!sandbox)
        throw new UsageError(`the sandbox commerce platform runs on test and dev hosts only (SERVICE_ENV is ${config.serviceEnv})`);
      return setSandboxOwner(ctx.db, sandbox, args[0]!, flags.email);
    }
    default:
      throw new UsageError(command ? `unknown command: ${key}` : 'no command given');
  }
}

/** Where a CLI run reads its configuration and writes its output: the process's own, or a test's. */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/**
 * Tells running service instances what changed. Every instance on PostgreSQL listens on its
 * NOTIFY channel (Redis or not); on PGlite no other process can be running.
 */
async function connectBus(config: Config, db: Db, io: CliIo): Promise<InvalidationBus> {
  const bus = new InvalidationBus();
  if (config.databaseUrl) {
    await bus.connectRemote(
      { postgres: { url: config.databaseUrl, db, bounds: jobBounds(config.database) } },
      pino({ level: 'warn' }, { write: (line: string) => io.stderr.write(line) }),
    );
  }
  return bus;
}

async function main(argv: string[], io: CliIo): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help') {
    io.stdout.write(`${USAGE}\n`);
    return argv.length === 0 ? 2 : 0;
  }
  const config = loadConfig(io.env);
  const release = config.databaseUrl ? () => {} : acquireDataDirLock(config.dataDir, 'cli');
  let database: DatabaseHandle | undefined;
  let bus: InvalidationBus | undefined;
  try {
    // An operator's command (imports, migrations) may take as long as a background job.
    database = await openDatabase({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      poolSize: 2,
      bounds: jobBounds(config.database),
    });
    if (argv[0] !== 'migrate') await migrateToLatest(database.db);
    bus = await connectBus(config, database.db, io);
    const result = await run(argv, { db: database.db, bus, serviceEnv: config.serviceEnv }, database, config);
    io.stdout.write(result instanceof TextOutput ? result.text : `${JSON.stringify(result, null, 2)}\n`);
    return 0;
  } finally {
    await bus?.close();
    await database?.close();
    release();
  }
}

/** What support sees when a command fails: the message on stderr, and the exit code (2: usage, 1: anything else). */
function reportFailure(error: unknown, io: CliIo): number {
  if (error instanceof UsageError) {
    io.stderr.write(`Error: ${error.message}\nRun "npm run cli -- help" for usage.\n`);
    return 2;
  }
  if (error instanceof DataDirLockedError && error.holder === 'server') {
    io.stderr.write(
      `Error: the service (pid ${error.pid}) is running on ${error.dataDir}, and PGlite allows one process at a time.\n` +
        'Use the admin API of the running service instead (Authorization: Bearer $ADMIN_TOKEN, see docs/support.md), ' +
        'or stop the service and run this command again.\n',
    );
  } else if (error instanceof ApiError) {
    io.stderr.write(`Error (${error.code}): ${error.message}\n`);
  } else if (error instanceof ConfigError || error instanceof FixtureError || error instanceof DataDirLockedError) {
    io.stderr.write(`Error: ${error.message}\n`);
  } else {
    io.stderr.write(`Error: ${error instanceof Error ? error.message : String(error)}\n`);
  }
  return 1;
}

/**
 * One CLI command, start to end: what `node dist/cli.js` runs, and what the tests call in their own
 * process (a Node start per command made the CLI's tests the suite's largest file). Resolves to the
 * exit code; never exits the process.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await main(argv, io);
  } catch (error) {
    return reportFailure(error, io);
  }
}

/** Run as a program (`node dist/cli.js`, `tsx src/cli.ts`), not imported. */
const isEntryPoint = process.argv[1] !== undefined && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url);

if (isEntryPoint) {
  const code = await runCli(process.argv.slice(2), { env: process.env, stdout: process.stdout, stderr: process.stderr });
  process.exit(code);
}
