/** How long one readiness answer is given again: a database that went away is reported within this. */
export const READINESS_INTERVAL_MS = 1000;

export type Readiness = { ready: true } | { ready: false; error: unknown };

/**
 * `/readyz` asks the database, and anyone may ask `/readyz`: the answer is shared, so however
 * many requests arrive, an instance sends at most one readiness query per interval. Requests
 * that arrive while the query runs wait for that same query; its outcome, ready or not, is
 * answered for READINESS_INTERVAL_MS after it settled (issue 44; docs/decisions.md, "/readyz").
 */
export class SharedReadiness {
  private running: Promise<Readiness> | undefined;
  private settled: { at: number; readiness: Readiness } | undefined;

  constructor(
    private readonly ping: () => Promise<void>,
    private readonly intervalMs = READINESS_INTERVAL_MS,
  ) {}

  check(): Promise<Readiness> {
    if (this.settled && performance.now() - this.settled.at < this.intervalMs) return Promise.resolve(this.settled.readiness);
    this.running ??= this.ping()
      .then(
        (): Readiness => ({ ready: true }),
        (error: unknown): Readiness => ({ ready: false, error }),
      )
      .then((readiness) => {
        this.settled = { at: performance.now(), readiness };
        this.running = undefined;
        return readiness;
      });
    return this.running;
  }
}
