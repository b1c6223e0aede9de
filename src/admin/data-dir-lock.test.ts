import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { acquireDataDirLock, DataDirLockedError, LOCK_FILE_NAME } from './data-dir-lock.js';

describe('DATA_DIR lock', () => {
  const dirs: string[] = [];
  const freshDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-lock-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('writes the pid while held and removes the file on release', () => {
    const dir = freshDir();
    const release = acquireDataDirLock(dir, 'server');
    expect(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE_NAME), 'utf8'))).toMatchObject({ pid: process.pid, holder: 'server' });
    release();
    expect(fs.existsSync(path.join(dir, LOCK_FILE_NAME))).toBe(false);
  });

  it('refuses while another live process holds it', () => {
    const dir = freshDir();
    // The parent of this worker is alive for the whole test.
    fs.writeFileSync(path.join(dir, LOCK_FILE_NAME), JSON.stringify({ pid: process.ppid, holder: 'server' }));
    expect(() => acquireDataDirLock(dir, 'cli')).toThrow(DataDirLockedError);
    expect(() => acquireDataDirLock(dir, 'cli')).toThrow(new RegExp(`pid ${process.ppid}`));
  });

  it('takes over a lock left by a process that has exited', () => {
    const dir = freshDir();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
    fs.writeFileSync(path.join(dir, LOCK_FILE_NAME), JSON.stringify({ pid: Number(dead), holder: 'server' }));
    const release = acquireDataDirLock(dir, 'cli');
    expect(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE_NAME), 'utf8')).pid).toBe(process.pid);
    release();
  });
});
