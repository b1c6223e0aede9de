import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(fileURLToPath(new URL('../../', import.meta.url)));

/** Set by the test run's global setup once it has built dist/ of this checkout (test/support/global-setup.ts). */
export const DIST_BUILT_ENV = 'SVC_TEST_DIST_BUILT';

const builtHere = new Set<string>();

/**
 * The node arguments that run an entry point (`server`, `worker`, `cli`) of the checkout in `cwd`:
 * its compiled JavaScript (dist/, built first when stale), which starts in half the CPU of the
 * same code through tsx. A checkout older than the build (a bench's baseline) runs through tsx.
 */
export function entryPointArgs(entry: 'server' | 'worker' | 'cli', cwd = ROOT): string[] {
  const checkout = path.resolve(cwd);
  if (!existsSync(path.join(checkout, 'scripts/build.ts'))) return ['--import', 'tsx', `src/${entry}.ts`];
  const builtByThisRun = checkout === ROOT && process.env[DIST_BUILT_ENV] === ROOT;
  if (!builtByThisRun && !builtHere.has(checkout)) {
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/build.ts', '--if-stale'], { cwd: checkout, stdio: 'inherit' });
    builtHere.add(checkout);
  }
  return ['--enable-source-maps', `dist/${entry}.js`];
}

/**
 * A port that is free now and stays free: picked below the kernel's ephemeral range
 * (/proc/sys/net/ipv4/ip_local_port_range, 32768 and up here), because a port from that range can
 * be handed to any outgoing connection (a PostgreSQL client, a fetch) between this check and the
 * moment a child process or a restarted server binds it.
 */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = 10_000 + Math.floor(Math.random() * 22_000);
    const free = await new Promise<boolean>((resolve) => {
      const server = net.createServer();
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

/** Polls `check` every `everyMs` until it returns true; returns the milliseconds it took, or throws after `withinMs`. */
export async function waitUntil(check: () => Promise<boolean>, withinMs: number, everyMs = 25): Promise<number> {
  const started = performance.now();
  for (;;) {
    if (await check()) return performance.now() - started;
    if (performance.now() - started > withinMs) throw new Error(`condition not met within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

export interface ChildService {
  process: ChildProcess;
  /** Everything the process wrote so far (stdout, and stderr when captured). */
  output: () => string;
  /**
   * SIGTERM, once: the service treats a second signal while it closes as "exit now" and exits 1,
   * so a test that signals mid-flight and then waits must never signal twice.
   */
  terminate: () => void;
  /** terminate(), then wait for the exit code (and the rest of the output). */
  stop: () => Promise<number | null>;
  /** SIGKILL, no chance to clean up. */
  kill: () => Promise<void>;
}

/**
 * Runs one of the project's entry points (the server, the worker) as its own process, compiled
 * (`entryPointArgs`), and waits until `isReady` says it is up. `cwd` runs another checkout's code.
 */
export async function spawnEntryPoint(
  entry: 'server' | 'worker',
  env: NodeJS.ProcessEnv,
  options: { captureStderr: boolean; isReady: (output: string) => Promise<boolean>; cwd?: string },
): Promise<ChildService> {
  // SERVICE_CPU_PROFILE_DIR=dir writes a V8 CPU profile of each process there when it exits (benches).
  const profileDir = process.env.SERVICE_CPU_PROFILE_DIR;
  const profiling = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profiling, ...entryPointArgs(entry, options.cwd)], {
    env,
    cwd: options.cwd ?? ROOT,
    stdio: ['ignore', 'pipe', options.captureStderr ? 'pipe' : 'inherit'],
  });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout!.on('data', collect);
  child.stderr?.on('data', collect);
  // 'close': the process has exited and everything it wrote has been read, so output() is whole.
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  try {
    // A hang guard, not a bound: on PGlite under a loaded machine (load 19 on two cores, seen in a
    // full run beside six other test runs) one start took over 60 s.
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`${entry} exited with ${child.exitCode} before it was ready: ${output}`);
        return options.isReady(output);
      },
      240_000,
      100,
    );
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  }
  let terminated = false;
  const terminate = () => {
    if (terminated || child.exitCode !== null) return;
    terminated = true;
    child.kill('SIGTERM');
  };
  return {
    process: child,
    output: () => output,
    terminate,
    stop: async () => {
      terminate();
      return exited;
    },
    kill: async () => {
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface ServiceProcess extends ChildService {
  baseUrl: string;
}

/**
 * The JSON lines a process has logged so far, in the order it wrote them (pino writes each line
 * synchronously). At LOG_LEVEL info the service logs each request it begins ("incoming request")
 * and answers ("request completed", with the `responseTime` it measured itself), keyed by `reqId`:
 * the request's X-Request-Id when the client sent one.
 */
export function logEntries(child: Pick<ChildService, 'output'>): Array<Record<string, unknown>> {
  const lines = child.output().split('\n');
  // The last piece is a line still being written, or empty.
  return lines
    .slice(0, -1)
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/**
 * The time the service itself took to answer each request (Fastify's `responseTime`, from the
 * start of its handling to the response sent), by request id; needs LOG_LEVEL info. Unlike a
 * time taken by the test's client, it does not grow when the test's own process is slow to run.
 */
export function responseTimes(service: Pick<ChildService, 'output'>): Map<string, number> {
  const times = new Map<string, number>();
  for (const entry of logEntries(service)) {
    if (entry.msg === 'request completed') times.set(String(entry.reqId), Number(entry.responseTime));
  }
  return times;
}

/** The requests the service began and never answered, as "METHOD url"; needs LOG_LEVEL info, and the whole log to say all. */
export function requestsUnanswered(service: Pick<ChildService, 'output'>): string[] {
  const begun = new Map<string, string>();
  for (const entry of logEntries(service)) {
    if (entry.msg === 'incoming request') {
      const request = entry.req as { method?: string; url?: string } | undefined;
      begun.set(String(entry.reqId), `${request?.method} ${request?.url}`);
    } else if (entry.msg === 'request completed') {
      begun.delete(String(entry.reqId));
    }
  }
  return [...begun.values()];
}

/** How many requests for `path` (query string aside) the service has begun; needs LOG_LEVEL info. */
export function requestsBegun(service: Pick<ChildService, 'output'>, path: string): number {
  return logEntries(service).filter((entry) => {
    if (entry.msg !== 'incoming request') return false;
    const url = (entry.req as { url?: string } | undefined)?.url ?? '';
    return url === path || url.startsWith(`${path}?`);
  }).length;
}

/**
 * Resolves once the service has begun shutting down: a new request to /healthz is refused, or
 * answered 503 as Fastify answers requests that arrive while it closes.
 */
export async function untilShuttingDown(service: { baseUrl: string }, withinMs = 60_000): Promise<void> {
  await waitUntil(
    async () => {
      try {
        const response = await fetch(`${service.baseUrl}/healthz`);
        await response.arrayBuffer();
        return response.status === 503;
      } catch {
        return true;
      }
    },
    withinMs,
    20,
  );
}

/**
 * Starts the real service (`dist/server.js`) as its own process and waits until it has printed its
 * start-up banner (written after it listens and its demo host is up) and /readyz answers.
 */
export async function startService(env: Record<string, string>, options: { port?: number; cwd?: string } = {}): Promise<ServiceProcess> {
  const port = options.port ?? (await freePort());
  const baseUrl = `http://127.0.0.1:${port}`;
  const service = await spawnEntryPoint(
    'server',
    { ...process.env, PORT: String(port), HOST: '127.0.0.1', BASE_URL: baseUrl, LOG_LEVEL: 'warn', ...env },
    {
      captureStderr: false,
      cwd: options.cwd,
      isReady: async (output) => {
        if (!output.includes(`Base URL:        ${baseUrl}`)) return false;
        try {
          return (await fetch(`${baseUrl}/readyz`)).ok;
        } catch {
          return false;
        }
      },
    },
  );
  return { ...service, baseUrl };
}
