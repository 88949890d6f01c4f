// Where the reader was in each thread, across a reload: a Svelte action
// for the conversation's scroller that stores its scroll position per
// thread in sessionStorage (switchboard.scroll.<id>) and, when a thread is
// shown again after a reload, scrolls back there once its turns have
// rendered. A reader at the bottom is left to follow new output.

const prefix = 'switchboard.scroll.';

interface Saved {
  top: number;
  bottom: boolean;
}

function read(id: string): Saved | undefined {
  try {
    const v = JSON.parse(sessionStorage.getItem(prefix + id) ?? 'null');
    return typeof v?.top === 'number' ? v : undefined;
  } catch {
    return undefined;
  }
}

function write(id: string, s: Saved): void {
  try {
    sessionStorage.setItem(prefix + id, JSON.stringify(s));
  } catch {
    // storage refused: not remembered
  }
}

/** use:rememberScroll={threadId} on the scrolling element. */
export function rememberScroll(node: HTMLElement, id: string) {
  let current = id;
  let restoring = 0;
  let frame = 0;

  const save = () => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      if (restoring) return;
      const bottom = node.scrollHeight - node.scrollTop - node.clientHeight < 40;
      write(current, { top: Math.round(node.scrollTop), bottom });
    });
  };

  // Waits (up to 5 s) for the content to be tall enough, then scrolls;
  // the user scrolling first wins.
  const restore = () => {
    cancelAnimationFrame(restoring);
    restoring = 0;
    const s = read(current);
    if (!s || s.bottom) return;
    const until = performance.now() + 5000;
    const stop = () => {
      cancelAnimationFrame(restoring);
      restoring = 0;
    };
    node.addEventListener('wheel', stop, { once: true, passive: true });
    node.addEventListener('keydown', stop, { once: true });
    const step = () => {
      if (node.scrollHeight - node.clientHeight >= s.top) {
        node.scrollTop = s.top;
        restoring = 0;
        node.dispatchEvent(new Event('scroll')); // the view learns it is not at the bottom
        return;
      }
      restoring = performance.now() < until ? requestAnimationFrame(step) : 0;
    };
    restoring = requestAnimationFrame(step);
  };

  node.addEventListener('scroll', save, { passive: true });
  restore();
  return {
    update(next: string) {
      if (next === current) return;
      current = next;
      restore();
    },
    destroy() {
      node.removeEventListener('scroll', save);
      cancelAnimationFrame(restoring);
      cancelAnimationFrame(frame);
    },
  };
}
