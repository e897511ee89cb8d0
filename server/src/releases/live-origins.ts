/**
 * The origins of the releases live now (every stable, canary and previous stable), held for the page's CSP, which is
 * computed synchronously for every answer. The releases plugin refreshes it from the database: at start-up, after
 * each change on this instance, on every `/remotes.json` answer and every few seconds (another instance's change).
 * The array is replaced only when the set changes, so the CSP is recomputed only then.
 */
export class LiveReleaseOrigins {
  private origins: readonly string[] = Object.freeze([]);

  get(): readonly string[] {
    return this.origins;
  }

  set(origins: readonly string[]): void {
    const sorted = [...new Set(origins)].sort();
    if (
      sorted.length === this.origins.length &&
      sorted.every((origin, index) => origin === this.origins[index])
    )
      return;
    this.origins = Object.freeze(sorted);
  }
}
