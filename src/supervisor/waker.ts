/**
 * The supervisor loop's nap: it sleeps until woken or a timeout, and a wake that comes while the loop is busy
 * (an agent ended during its looks) is not lost — the next nap returns at once, so the freed slot is filled
 * now rather than after the timeout.
 */
export class Waker {
  private woken = false;
  private waiting: (() => void) | null = null;

  /** Something changed: the current nap ends, or the next one does not start. */
  wake(): void {
    this.woken = true;
    this.waiting?.();
  }

  /** Called before the loop's looks: a wake from here on counts. */
  look(): void {
    this.woken = false;
  }

  /** Sleeps up to `ms`, unless woken since `look()`. */
  async nap(ms: number): Promise<void> {
    if (this.woken) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => this.waiting?.(), ms);
      this.waiting = () => {
        clearTimeout(t);
        this.waiting = null;
        resolve();
      };
    });
  }
}
