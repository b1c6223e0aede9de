import fs from 'node:fs';

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: number[], p: number): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index]!;
}

/** The middle sample, or the mean of the two middle ones. */
export function median(samples: number[]): number {
  if (samples.length === 0) return NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function summarize(samples: number[]): { median: number; p95: number; p99: number; count: number } {
  return { median: median(samples), p95: percentile(samples, 95), p99: percentile(samples, 99), count: samples.length };
}

/** A Markdown report printed as it is written, saved to `file` (relative to the repository) at the end. */
export function markdownReport(): { out: (line?: string) => void; save: (file: string) => string } {
  const lines: string[] = [];
  return {
    out(line = '') {
      lines.push(line);
      process.stdout.write(`${line}\n`);
    },
    save(file) {
      const target = new URL(`../${file}`, import.meta.url);
      fs.writeFileSync(target, `${lines.join('\n')}\n`);
      return target.pathname;
    },
  };
}

export { freePort, startService } from '../test/support/service-process.js';
