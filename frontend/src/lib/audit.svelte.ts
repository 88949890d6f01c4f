// The decision history (the audit): GET /v1/permissions with filters,
// newest first, a page at a time (nextCursor → "Load more"). A change of
// filter starts over; an answer to an older query is dropped.
import type { Transport } from './transport';
import type { Permission, PermissionQuery } from './types';
import { normalizePermission } from './shapes';

export interface AuditFilters {
  status: PermissionQuery['status'];
  /** A decidedBy prefix ("rule:", "window", …); "" for any. */
  decidedBy: string;
  agent: string;
}

/** The decidedBy filter's choices: the namespace of docs/API.md (Conventions). */
export const decidedByFilters: { value: string; label: string }[] = [
  { value: '', label: 'anyone' },
  { value: 'rule:', label: 'a config rule' },
  { value: 'remembered:', label: 'a remembered decision' },
  { value: 'window', label: 'you, in the window' },
  { value: 'browser', label: 'you, in a browser' },
  { value: 'notification', label: 'a notification' },
  { value: 'tray', label: 'the tray' },
  { value: 'client:', label: 'an editor or other client' },
  { value: 'timeout', label: 'timed out' },
  { value: 'cancel', label: 'stopping the turn' },
  { value: 'hub', label: 'Switchboard' },
];

export class AuditLog {
  items = $state<Permission[]>([]);
  nextCursor = $state<string | undefined>();
  loading = $state(false);
  error = $state('');
  filters = $state<AuditFilters>({ status: '', decidedBy: '', agent: '' });

  private transport: Pick<Transport, 'queryPermissions'>;
  private pageSize: number;
  private gen = 0;

  constructor(transport: Pick<Transport, 'queryPermissions'>, pageSize = 50) {
    this.transport = transport;
    this.pageSize = pageSize;
  }

  /** Loads the first page for the filters in force. */
  async load(): Promise<void> {
    this.items = [];
    this.nextCursor = undefined;
    await this.page(undefined);
  }

  /** Loads the next page; nothing when there is none or one is loading. */
  async more(): Promise<void> {
    if (!this.nextCursor || this.loading) return;
    await this.page(this.nextCursor);
  }

  private async page(cursor: string | undefined): Promise<void> {
    const gen = ++this.gen;
    this.loading = true;
    this.error = '';
    const f = this.filters;
    try {
      const p = await this.transport.queryPermissions({
        status: f.status || undefined,
        decidedBy: f.decidedBy || undefined,
        agent: f.agent || undefined,
        limit: this.pageSize,
        cursor,
      });
      if (gen !== this.gen) return;
      const have = new Set(this.items.map((x) => x.id));
      this.items = [...this.items, ...p.permissions.flatMap((x) => {
        const n = normalizePermission(x);
        return n && !have.has(n.id) ? [n] : [];
      })];
      this.nextCursor = p.nextCursor;
    } catch (e) {
      if (gen === this.gen) this.error = e instanceof Error ? e.message : String(e);
    } finally {
      if (gen === this.gen) this.loading = false;
    }
  }
}
