import fs from 'node:fs';
import path from 'node:path';

/** PGlite keeps its files in DATA_DIR and must not be opened by two processes at once. */
export const LOCK_FILE_NAME = 'service.lock';

export type LockHolder = 'server' | 'cli';

export class DataDirLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    readonly holder: LockHolder,
  ) {
    super(`${dataDir} is in use by the ${holder === 'server' ? 'service' : 'CLI'} (pid ${pid}); PGlite allows one process at a time`);
    this.name = 'DataDirLockedError';
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readLock(file: string): { pid: number; holder: LockHolder } | undefined {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { pid?: unknown; holder?: unknown };
    if (typeof parsed.pid === 'number' && (parsed.holder === 'server' || parsed.holder === 'cli')) {
      return { pid: parsed.pid, holder: parsed.holder };
    }
  } catch {
    // Unreadable or half-written: treated as stale below.
  }
  return undefined;
}

/**
 * Takes DATA_DIR for this process by creating a lock file with its pid (exclusive create, so two
 * starters cannot both win). A lock left by a process that has died is taken over. Returns the
 * release function.
 */
export function acquireDataDirLock(dataDir: string, holder: LockHolder): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const file = path.join(dataDir, LOCK_FILE_NAME);
  const content = JSON.stringify({ pid: process.pid, holder, startedAt: new Date().toISOString() });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      fs.writeFileSync(file, content, { flag: 'wx' });
      return () => {
        if (readLock(file)?.pid === process.pid) fs.rmSync(file, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const current = readLock(file);
    if (current && current.pid !== process.pid && isAlive(current.pid)) throw new DataDirLockedError(dataDir, current.pid, current.holder);
    fs.rmSync(file, { force: true });
  }
  throw new Error(`could not take the lock file ${file}; another process keeps creating it`);
}
