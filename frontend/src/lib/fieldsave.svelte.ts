// The one way Settings saves (ADR 0037): every field saves when its value
// is committed (a switch or radio as it changes, a number or select on
// change: Enter or leaving the field), and shows its own state beside it:
// Saving…, Saved, or the hub's refusal. A FieldSave holds that state for
// one field; SaveStatus.svelte shows it in a slot of fixed height, so
// nothing moves when a state comes or goes.
import { describeError } from './settings';

export type SaveState = 'idle' | 'saving' | 'saved' | 'error';

export class FieldSave {
  state = $state<SaveState>('idle');
  /** The hub's refusal (message and code) when state is "error". */
  error = $state('');

  get busy(): boolean {
    return this.state === 'saving';
  }

  /** The saves of this field in order: a value committed while one saves goes after it. */
  private chain: Promise<unknown> = Promise.resolve();
  private waiting = 0;

  /**
   * Runs save (one PATCH) after any save of this field still running, so
   * the last value committed is the one saved; true when the hub took it.
   * A refusal is kept for the field to show, and the caller puts back the
   * value in force.
   */
  run(save: () => Promise<unknown>): Promise<boolean> {
    this.waiting++;
    this.state = 'saving';
    this.error = '';
    const done = this.chain.then(async () => {
      try {
        await save();
        if (--this.waiting === 0) this.state = 'saved';
        return true;
      } catch (err) {
        this.waiting--;
        this.error = describeError(err);
        this.state = 'error';
        return false;
      }
    });
    this.chain = done;
    return done;
  }

  /** Back to nothing to say (the value is being edited again). */
  reset(): void {
    if (this.state !== 'saving') {
      this.state = 'idle';
      this.error = '';
    }
  }

  /** A problem found before any save (a bad value typed): shown like the hub's refusal. */
  refuse(message: string): void {
    this.error = message;
    this.state = 'error';
  }
}
