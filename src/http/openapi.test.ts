import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import createClient from 'openapi-fetch';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFixture, readFixtureFile } from '../demo/loader.js';
import { DEMO_FIXTURE_PATH } from '../demo/startup.js';
import { settleScores } from '../../test/support/bulk-seeds.js';
import { startTestApp, stopTestApp, type TestContext } from '../../test/support/harness.js';
import { oauthWorld, REDIRECT_URI } from '../../test/support/oauth-flow.js';
import { freePort } from '../../test/support/service-process.js';
import type { paths } from '../../test/openapi-client/api.js';
import { callEveryOperation } from '../../test/openapi-client/calls.js';
import { CLIENT_CALLS_FILE, CLIENT_TYPES_FILE, clientTypes } from '../../test/openapi-client/generate.js';

const run = promisify(execFile);
const REDOCLY = path.resolve('node_modules/.bin/redocly');
const WEBHOOK_SECRET = 'openapi-client-webhook-secret-0123456789';

interface Operation {
  responses: Record<string, unknown>;
}
type OpenApiDocument = { paths: Record<string, Record<string, Operation>> };

/** `METHOD /path` of every operation in the document. */
function operationsOf(document: OpenApiDocument): string[] {
  return Object.entries(document.paths).flatMap(([route, item]) => Object.keys(item).map((method) => `${method.toUpperCase()} ${route}`));
}

describe('the OpenAPI document (/v1/openapi.json)', () => {
  let context: TestContext;
  let baseUrl: string;
  let document: OpenApiDocument;

  beforeAll(async () => {
    const port = await freePort();
    baseUrl = `http://127.0.0.1:${port}`;
    // Database-independent behaviour: one PostgreSQL database is the quickest to start.
    context = await startTestApp('postgres', { ORDERS_WEBHOOK_SECRET: WEBHOOK_SECRET });
    await context.app.listen({ port, host: '127.0.0.1' });
    document = (await context.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  });

  afterAll(async () => {
    if (context) await stopTestApp(context);
  });

  it('passes `redocly lint` with its recommended rules: no error, no warning', async () => {
    const directory = await mkdtemp(path.join(os.tmpdir(), 'openapi-lint-'));
    try {
      const file = path.join(directory, 'openapi.json');
      await writeFile(file, JSON.stringify(document));
      // Nothing leaves the machine: no telemetry, no update check.
      const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
      const { stdout } = await run(REDOCLY, ['lint', file, '--format=json'], { env }).catch((error) => error);
      const report = JSON.parse(stdout) as { totals: Record<string, number>; problems: Array<{ ruleId: string; message: string }> };
      expect(report.problems.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
      expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });

  it('describes every response of every operation, with an example for every body; /r/{token} answers 302', () => {
    for (const [operation, responses] of operationsOf(document).map((name) => {
      const [method, route] = name.split(' ') as [string, string];
      return [name, document.paths[route]![method.toLowerCase()]!.responses] as const;
    })) {
      for (const [status, response] of Object.entries(responses) as Array<[string, { description: string; content?: object }]>) {
        expect(response.description, `${operation} ${status}`).not.toBe('Default Response');
        for (const [type, media] of Object.entries(response.content ?? {}) as Array<[string, Record<string, unknown>]>) {
          const example = media.example ?? media.examples ?? (media.schema as { examples?: unknown })?.examples;
          expect(example, `${operation} ${status} ${type}`).toBeDefined();
        }
      }
    }
    expect(Object.keys(document.paths['/r/{token}']!.get!.responses)).toContain('302');
  });

  it('generates the committed client types (npm run openapi:types), which with the calls pass tsc', async () => {
    expect(await clientTypes(document), 'test/openapi-client/api.d.ts is stale: run npm run openapi:types').toBe(
      await readFile(CLIENT_TYPES_FILE, 'utf8'),
    );
    const options: ts.CompilerOptions = {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      noUncheckedIndexedAccess: true,
      skipLibCheck: true,
      types: ['node'],
    };
    const program = ts.createProgram([CLIENT_CALLS_FILE, CLIENT_TYPES_FILE], options);
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map((diagnostic) => `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
    expect(problems).toEqual([]);
  });

  it('answers every operation, called through openapi-fetch, with a status the document lists for it', async () => {
    const demo = await readFixtureFile(DEMO_FIXTURE_PATH);
    await loadFixture(context.support, demo, { baseUrl });
    await settleScores(context.db);
    const { confidentialClient } = await oauthWorld(context);

    const answered: Array<{ operation: string; status: number }> = [];
    const client = createClient<paths>({ baseUrl });
    client.use({
      onResponse: ({ request, response, schemaPath }) => {
        answered.push({ operation: `${request.method} ${schemaPath}`, status: response.status });
      },
    });
    const results = await callEveryOperation(client, {
      brandKey: demo.brands![0]!.apiKeys![0]!,
      platformKey: demo.platforms![0]!.keys![0]!.key,
      platformId: demo.platforms![0]!.id,
      oauthClient: { clientId: confidentialClient.clientId, clientSecret: confidentialClient.clientSecret!, redirectUri: REDIRECT_URI },
      webhookSecret: WEBHOOK_SECRET,
    });

    expect(new Set(answered.map((call) => call.operation))).toEqual(new Set(operationsOf(document)));
    for (const { operation, status } of answered) {
      const [method, route] = operation.split(' ') as [string, string];
      expect(Object.keys(document.paths[route]![method.toLowerCase()]!.responses), `${operation} answered ${status}`).toContain(
        String(status),
      );
      expect(status, operation).toBeLessThan(400);
    }
    expect(results).toMatchObject({ syncCreated: 2, tokenScope: 'brand', orderDuplicate: false, refundTaken: 1000, authorizePage: true });
    expect(results.partnerDomains).toContain('harborandvine.example');
    expect(results.campaignStatuses.length).toBeGreaterThan(0);
    expect(results.recommendationCount).toBeGreaterThan(0);
    expect(results.offerTitles.length).toBeGreaterThan(0);
    expect(results.referralRedirect).toMatch(/^https:\/\//);
    expect(results.partnersWithToken).toBeGreaterThanOrEqual(0);
  });
});
