import { fireEvent, screen, within } from '@testing-library/svelte';

/** The shown thread's actions menu button (ThreadHeader's OverflowMenu). */
export function threadMenuButton(): HTMLButtonElement {
  return screen.getByRole('button', { name: 'Thread actions' }) as HTMLButtonElement;
}

/** The item named name of the shown thread's actions menu, opening the menu when closed, as a user does. */
export async function threadMenuItem(name: string): Promise<HTMLButtonElement> {
  const b = await screen.findByRole('button', { name: 'Thread actions' });
  if (b.getAttribute('aria-expanded') !== 'true') await fireEvent.click(b);
  const menu = await screen.findByRole('menu', { name: 'Thread actions' });
  return within(menu).getByRole('menuitem', { name }) as HTMLButtonElement;
}

/** Whether the open (or opened) actions menu has an item named name. */
export async function threadMenuHas(name: string): Promise<boolean> {
  const b = await screen.findByRole('button', { name: 'Thread actions' });
  if (b.getAttribute('aria-expanded') !== 'true') await fireEvent.click(b);
  const menu = await screen.findByRole('menu', { name: 'Thread actions' });
  return within(menu).queryByRole('menuitem', { name }) !== null;
}
