import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../src/db/schema.js';

/**
 * Each bulk-inserted attributed order whose id is like `orderIds` gets its commission entry in the
 * ledger (migration 0015), as order intake writes it: the money rollups and statements read both.
 */
export async function bookCommissions(db: Kysely<Database>, orderIds: string): Promise<void> {
  await sql`
    insert into commission_ledger (kind, receiving_brand_id, showing_brand_id, platform_id, campaign_id, store_domain, order_id,
                                   amount_minor, currency, rate_basis_points, basis_minor, customer, customer_basis, touch, created_at)
    select 'commission', partner_id, brand_id, platform_id, campaign_id, store_domain, order_id, commission_cents, currency,
           case when new_customer then 500 else 0 end, total_cents, case when new_customer then 'new' else 'returning' end,
           'store_history', 'click', placed_at
    from attributed_orders where order_id like ${orderIds}`.execute(db);
}

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

export { freePort, startService, type ServiceProcess } from '../test/support/service-process.js';

let clockTicksPerSecond: number | undefined;

/**
 * CPU time (user + system, all threads) that process `pid` has used so far, in µs, read from
 * /proc/<pid>/stat; undefined where there is no /proc or the process is gone. The kernel counts
 * in clock ticks (usually 10 ms), so differences are meaningful over runs of a second or more.
 */
export function processCpuMicros(pid: number): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name in parentheses may hold spaces; the fields after it are space-separated.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  clockTicksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  return ((Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond) * 1_000_000;
}

/**
 * The CPU time some processes use over a stretch of a run: a process gone before the end
 * counts for nothing, one that is not there at the start is not seen.
 */
export class CpuMeter {
  private readonly atStart = new Map<number, number>();

  constructor(pids: number[]) {
    for (const pid of pids) {
      const micros = processCpuMicros(pid);
      if (micros !== undefined) this.atStart.set(pid, micros);
    }
  }

  /** µs of CPU used since the meter was made. */
  used(): number {
    let sum = 0;
    for (const [pid, start] of this.atStart) sum += (processCpuMicros(pid) ?? start) - start;
    return sum;
  }
}
