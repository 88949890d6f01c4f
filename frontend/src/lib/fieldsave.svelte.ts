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

  /**
   * Runs save (one PATCH); true when the hub took it. A save while one is
   * running is not started (false). A refusal is kept for the field to
   * show, and the caller puts back the value in force.
   */
  async run(save: () => Promise<unknown>): Promise<boolean> {
    if (this.state === 'saving') return false;
    this.state = 'saving';
    this.error = '';
    try {
      await save();
      this.state = 'saved';
      return true;
    } catch (err) {
      this.error = describeError(err);
      this.state = 'error';
      return false;
    }
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
