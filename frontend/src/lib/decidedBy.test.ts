import { describe, expect, it } from 'vitest';
import { decidedByWords } from './decidedBy';

describe('decidedByWords', () => {
  it.each([
    [undefined, ''],
    ['', ''],
    ['window', 'you, in the window'],
    ['browser', 'you, in a browser'],
    ['notification', 'a notification'],
    ['tray', 'the tray'],
    ['client:acp-zed', 'editor acp-zed'],
    ['client:window', 'client window'],
    ['client:switchboard-tray', 'client switchboard-tray'],
    ['client:me', 'you'],
    ['rule:no-rm', 'rule: no-rm'],
    ['remembered:rl_1', 'a remembered decision'],
    ['timeout', 'timed out'],
    ['cancel', 'stopping the turn'],
    ['hub', 'Switchboard'],
    ['link:window', 'you, in the window, over the host link'],
    ['link:client:me', 'you, over the host link'],
    ['link:', 'link:'],
    ['something-new', 'something-new'],
  ])('%s → %s', (v, words) => {
    expect(decidedByWords(v, 'me')).toBe(words);
  });
});
