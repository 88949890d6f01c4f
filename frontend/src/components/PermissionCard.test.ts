import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fireEvent, render, screen, within } from '@testing-library/svelte';
import PermissionCard from './PermissionCard.svelte';
import { permission } from '../test/fakeTransport';

describe('PermissionCard', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('shows the tool call and the options, inert for 500 ms, nothing focused', async () => {
    const ondecide = vi.fn();
    render(PermissionCard, { permission: permission('pe_1'), ondecide });
    expect(screen.getByText('Agent request: run a command', { selector: 'strong' })).toBeTruthy();
    expect(screen.getByText('rm -rf build', { selector: 'q' }).closest('p')?.textContent).toBe('The agent says: rm -rf build');
    expect(screen.getByLabelText('Command').textContent).toBe('rm -rf build');
    expect(screen.getByText('/home/me/src/app/build')).toBeTruthy();

    const allow = screen.getByRole('button', { name: 'Allow once' }) as HTMLButtonElement;
    const reject = screen.getByRole('button', { name: 'Deny' }) as HTMLButtonElement;
    expect(document.activeElement).toBe(document.body);
    expect(allow.disabled).toBe(true);
    // Svelte sets the inert property (jsdom does not reflect it to the attribute).
    const group = screen.getByRole('group', { name: 'Answer' }) as HTMLElement & { inert?: boolean };
    const isInert = () => group.inert === true || group.hasAttribute('inert');
    expect(isInert()).toBe(true);
    await fireEvent.click(allow);
    expect(ondecide).not.toHaveBeenCalled();

    await vi.advanceTimersByTimeAsync(499);
    expect(allow.disabled).toBe(true);
    await vi.advanceTimersByTimeAsync(1);
    expect(allow.disabled).toBe(false);
    expect(isInert()).toBe(false);
    expect(document.activeElement).toBe(document.body);
    await fireEvent.click(reject);
    expect(ondecide).toHaveBeenCalledWith('reject');
  });

  it("shows the names of a hub terminal's variables, never their values", () => {
    const toolCall = {
      toolCallId: 'hub_terminal_1',
      title: "sh -c 'make test'",
      kind: 'execute',
      rawInput: { command: "sh -c 'make test'", cwd: '/home/me/src/app', env: ['API_KEY', 'DEBUG'] },
      locations: [{ path: '/home/me/src/app' }],
    };
    render(PermissionCard, { permission: permission('pe_1', { toolCall }), ondecide: vi.fn() });
    expect(screen.getByLabelText('Command').textContent).toBe("sh -c 'make test'");
    const env = screen.getByRole('list', { name: 'Environment set by the agent' });
    expect([...env.querySelectorAll('li')].map((li) => li.textContent?.replace(/\s+/g, ' ').trim())).toEqual([
      'API_KEY (value not shown)',
      'DEBUG (value not shown)',
    ]);
    expect(screen.getByText('/home/me/src/app')).toBeTruthy();
  });

  it('says who decided a resolved request and when, with what was asked folded, and offers no buttons', () => {
    const decidedAt = '2026-11-21T06:07:08Z';
    const { unmount, container } = render(PermissionCard, {
      permission: permission('pe_1', { status: 'approved', decidedBy: 'tray', optionId: 'allow', decidedAt }),
      ondecide: vi.fn(),
    });
    expect(container.querySelector('.resolved')?.textContent).toBe(`Approved by the tray at ${new Date(decidedAt).toLocaleTimeString()}`);
    expect(screen.queryByRole('button')).toBeNull();
    const what = container.querySelector('details.what') as HTMLDetailsElement;
    expect(what.open).toBe(false);
    expect(within(what).getByLabelText('Command').textContent).toBe('rm -rf build');
    unmount();
    const r = render(PermissionCard, {
      permission: permission('pe_2', { status: 'declined', decidedBy: 'client:acp-zed', optionId: 'reject' }),
      selfId: 'browser-me',
      ondecide: vi.fn(),
    });
    expect(r.container.querySelector('.resolved')?.textContent).toBe('Declined by editor acp-zed');
    r.unmount();
    const rr = render(PermissionCard, {
      permission: permission('pe_3', { status: 'expired', decidedBy: 'timeout' }),
      ondecide: vi.fn(),
    });
    expect(rr.container.querySelector('.resolved')?.textContent).toBe('Expired: no answer in time');
  });

  it('names its region after the tool call, and the thread when shown away from it', () => {
    const { unmount } = render(PermissionCard, { permission: permission('pe_1'), ondecide: vi.fn() });
    expect(screen.getByRole('region', { name: 'Permission request: rm -rf build' })).toBeTruthy();
    unmount();
    render(PermissionCard, { permission: permission('pe_1'), thread: 'Fix the build', ondecide: vi.fn() });
    expect(screen.getByRole('region', { name: 'Permission request in Fix the build: rm -rf build' })).toBeTruthy();
  });
});

describe('PermissionCard countdown', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-21T06:05:19Z')); // deadline 06:15:00
  });
  afterEach(() => vi.useRealTimers());

  it('counts down each second, quietly, with the deadline time for screen readers', async () => {
    const { container } = render(PermissionCard, { permission: permission('pe_1'), ondecide: vi.fn() });
    const p = container.querySelector('.countdown')!;
    const tick = p.querySelector('[aria-live="off"]')!;
    expect(tick.textContent).toBe('expires in 9:41');
    expect(p.querySelector('.visually-hidden')?.textContent).toBe(` (answer by ${new Date('2026-11-21T06:15:00Z').toLocaleTimeString()})`);
    await vi.advanceTimersByTimeAsync(1000);
    expect(tick.textContent).toBe('expires in 9:40');
    expect(screen.getByRole('status').textContent).toBe('');
    await vi.advanceTimersByTimeAsync(9 * 60_000 - 1000); // 0:41 left
    expect(tick.textContent).toBe('expires in 0:41');
    expect(p.classList.contains('urgent')).toBe(true);
    expect(screen.getByRole('status').textContent).toBe('Less than a minute left to answer this request.');
    await vi.advanceTimersByTimeAsync(41_000);
    expect(tick.textContent).toBe('expiring…');
  });

  it('shows hours, and stops ticking once decided', async () => {
    const { container, rerender } = render(PermissionCard, { permission: permission('pe_1', { deadline: '2026-11-21T08:05:20Z' }), ondecide: vi.fn() });
    expect(container.querySelector('.countdown [aria-live="off"]')?.textContent).toBe('expires in 2:00:01');
    const timers = vi.getTimerCount();
    expect(timers).toBeGreaterThan(0);
    await rerender({ permission: permission('pe_1', { status: 'approved', optionId: 'allow', decidedBy: 'tray' }) });
    expect(container.querySelector('.countdown')).toBeNull();
    expect(vi.getTimerCount()).toBe(timers - 1);
  });
});

describe('PermissionCard option labels', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("puts the buttons in Switchboard's order with unique labels, the agent's wording beside them, its always options in Always…", async () => {
    const ondecide = vi.fn();
    const { container } = render(PermissionCard, {
      permission: permission('pe_1', {
        options: [
          { optionId: 'r2', name: 'Yes, forever', kind: 'reject_always' },
          { optionId: 'r1', name: 'Approve', kind: 'reject_once' },
          { optionId: 'a2', name: 'always allow', kind: 'allow_always' },
          { optionId: 'x', name: 'Something else', kind: 'custom_kind' },
          { optionId: 'a1', name: 'Deny', kind: 'allow_once' },
          { optionId: 'a3', name: 'Allow', kind: 'allow_once' },
        ],
      }),
      ondecide,
    });
    const buttons = [...container.querySelectorAll<HTMLButtonElement>('.options > button')];
    const seen = buttons.map((b) => ({
      label: [...b.childNodes].filter((n) => n.nodeType === Node.TEXT_NODE).map((n) => n.textContent).join(''),
      wording: b.querySelector('.wording')?.textContent?.replace(/^, in the agent's words: /, '') ?? '',
      primary: b.classList.contains('primary'),
    }));
    expect(seen).toEqual([
      { label: 'Allow once', wording: '“Deny”', primary: true },
      { label: 'Allow once (2)', wording: '', primary: true },
      { label: 'Deny', wording: '“Approve”', primary: false },
      { label: 'Something else', wording: '', primary: false },
    ]);
    // One "Always…", last and plain, never filled; every label on the card once.
    const always = container.querySelector<HTMLButtonElement>('.options .always > button')!;
    expect(always.textContent).toBe('Always…');
    expect(always.classList.contains('primary')).toBe(false);
    const labels = [...container.querySelectorAll('button')].map((b) => b.textContent);
    expect(new Set(labels).size).toBe(labels.length);
    // The accessible name says both, the kind first.
    const deny = screen.getByRole('button', { name: "Allow once, in the agent's words: “Deny”" });
    expect(screen.getByRole('button', { name: "Deny, in the agent's words: “Approve”" })).toBeTruthy();
    await vi.advanceTimersByTimeAsync(500);
    await fireEvent.click(deny);
    expect(ondecide).toHaveBeenCalledWith('a1');
    // The agent's always options, in the menu, by kind with its wording.
    await fireEvent.click(always);
    const items = screen.getAllByRole('menuitem').map((m) => m.textContent?.replace(/, in the agent's words:/, '').trim());
    expect(items).toEqual(["Always allow (the agent's option)", "Always deny (the agent's option) “Yes, forever”"]);
  });

  it('says what a resolved request chose by its kind', () => {
    render(PermissionCard, {
      permission: permission('pe_1', {
        status: 'approved',
        decidedBy: 'tray',
        optionId: 'a1',
        options: [{ optionId: 'a1', name: 'Deny', kind: 'allow_once' }],
      }),
      ondecide: vi.fn(),
    });
    expect(document.querySelector('.resolved')?.textContent).toBe('Approved by the tray · Allow once “Deny”');
  });
});
