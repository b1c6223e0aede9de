import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HEALTH_CHECK, RUNTIME_FILES, runContainerCheck } from '../../scripts/container-check.ts';

const DOCKERFILE = fs.readFileSync(new URL('../../Dockerfile', import.meta.url), 'utf8');

/** The instructions of the Dockerfile's last stage (the image), continuation lines joined. */
function runtimeStage(): string[] {
  const instructions = DOCKERFILE.replace(/\\\n\s*/g, '')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'));
  const stages = instructions.map((line, index) => (line.startsWith('FROM ') ? index : -1)).filter((index) => index >= 0);
  return instructions.slice(stages.at(-1));
}

describe('the Dockerfile', () => {
  it('builds on Node 24 slim and runs the compiled server as a non-root user, with production dependencies only', () => {
    const stage = runtimeStage();
    expect(stage[0]).toBe('FROM node:24-slim');
    expect(DOCKERFILE).toMatch(/^FROM node:24-slim AS build$/m);
    expect(stage).toContain('RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force');
    expect(stage).toContain('USER node');
    expect(stage.at(-1)).toBe('CMD ["node", "--enable-source-maps", "dist/server.js"]');
  });

  it('copies into the image the files the container check copies, and checks health the same way', () => {
    const copied = runtimeStage()
      .filter((line) => line.startsWith('COPY ') && !line.includes('package.json'))
      .map((line) => line.split(/\s+/).at(-1));
    expect(copied).toEqual(RUNTIME_FILES);
    const healthCheck = runtimeStage().find((line) => line.startsWith('HEALTHCHECK '));
    const command = JSON.parse(healthCheck?.slice(healthCheck.indexOf('CMD ') + 4) ?? '[]') as string[];
    expect(command).toEqual(['node', '-e', HEALTH_CHECK]);
  });
});

describe('npm run container-check', () => {
  it('installs production dependencies only in a clean directory, and the compiled server starts on PostgreSQL, is healthy, \
answers offers, a page with its prebuilt files and the published loader, and stops cleanly', async () => {
    await expect(runContainerCheck()).resolves.toBeUndefined();
  });
});
