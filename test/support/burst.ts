/**
 * `count` requests spread over about count / 10 ms. Group-committed requests are answered in
 * waves, one per commit, and a burst sent all at once can come back in a single wave; spread out,
 * some requests are always waiting for their commit whenever a test signals the service.
 */
export function spreadBurst<T>(count: number, send: (index: number) => Promise<T>): Array<Promise<T>> {
  return Array.from({ length: count }, async (_, index) => {
    await new Promise((resolve) => setTimeout(resolve, Math.floor(index / 10)));
    return send(index);
  });
}
