// Archive, export and import from the UI (issue 21), over the store's
// transport: the thread the hub answers goes into the store, as any
// thread_updated would put it there.
import type { HubStore } from './hubstore.svelte';
import type { ExportRequest, ImportResult } from './types';
import { download, exportFileName } from './download';
import { HubError } from './transport';

/** Archives or unarchives a thread; it cancels nothing. */
export async function setArchived(store: HubStore, id: string, archived: boolean): Promise<void> {
  const t = await store.transport.setArchived(id, archived);
  if (t?.id) store.upsertThread(t);
}

/**
 * Archives the caller's threads not updated since before (POST
 * /v1/threads/archive): their thread_updated events take them out of the
 * list. Resolves how many.
 */
export async function archiveIdle(store: HubStore, before: Date): Promise<number> {
  return store.transport.archiveThreads({ idleBefore: before.toISOString() });
}

/** Reads the archived threads into the store (the list shows them when asked). */
export async function loadArchived(store: HubStore): Promise<number> {
  let cursor: string | undefined;
  let n = 0;
  for (let page = 0; page < 20; page++) {
    const p = await store.transport.queryThreads('true', 100, cursor);
    for (const t of p.threads) store.upsertThread(t);
    n += p.threads.length;
    cursor = p.nextCursor;
    if (!cursor) break;
  }
  return n;
}

/**
 * Exports a thread (or a folder's threads) to a file: in the window
 * through the native Save dialog (the hub writes it), in a browser as a
 * download.
 */
export async function exportToFile(store: HubStore, req: ExportRequest, name: string): Promise<void> {
  const file = exportFileName(name, req.format);
  if (store.transport.saveExport) {
    await store.transport.saveExport(req, file);
    return;
  }
  const text = await store.transport.exportThreads(req);
  download(file, text, req.format === 'md' ? 'text/markdown' : 'application/x-ndjson');
}

/**
 * Imports a JSON lines export (into cwd, the folder the user chose, when
 * set); the new threads join the list, and the first is shown.
 */
export async function importFile(store: HubStore, file: Blob, cwd?: string): Promise<ImportResult> {
  const r = await store.transport.importThreads(file, cwd);
  for (const t of r.threads) store.upsertThread(t);
  if (r.threads[0]) await store.select(r.threads[0].id);
  return r;
}

/**
 * The folder of an import the hub refused because the file names a folder
 * the user never chose (details.reason IMPORT_FOLDER): the user is asked
 * for one. undefined for any other error.
 */
export function refusedImportFolder(err: unknown): string | undefined {
  if (err instanceof HubError && err.details?.reason === 'IMPORT_FOLDER') {
    return typeof err.details.cwd === 'string' ? err.details.cwd : '';
  }
  return undefined;
}
