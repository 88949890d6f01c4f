import { describe, expect, it } from 'vitest';
import type { Permission, PermissionKind } from './types';
import { cardName, commandLine, describePermission, flagText, kindLabel, shellQuote, visible } from './permissionView';

function perm(over: Partial<Permission> = {}): Permission {
  return {
    id: 'p1',
    threadId: 't1',
    turnId: 'u1',
    status: 'pending',
    toolCall: { toolCallId: 'c1', title: 'npm test', kind: 'execute' },
    options: [{ optionId: 'a', name: 'Allow', kind: 'allow_once' }],
    deadline: '',
    ...over,
  };
}

describe('shellQuote', () => {
  it.each([
    ['npm', 'npm'],
    ['--flag=a,b', '--flag=a,b'],
    ['', "''"],
    ['two words', "'two words'"],
    ["it's", `'it'\\''s'`],
    ['$(id)', "'$(id)'"],
    ['line\nbreak', `$'line\\nbreak'`],
    ['bidi\u202eevil', `$'bidi\\u202eevil'`],
    ['é', "'é'"],
  ])('%j → %s', (arg, want) => {
    expect(shellQuote(arg)).toBe(want);
  });
  it('joins a command line', () => {
    expect(commandLine(['touch', 'my file', ''])).toBe("touch 'my file' ''");
  });
  it('escapes invisible characters', () => {
    expect(visible('a\u200bb\tc')).toBe('a\\u200bb\\tc');
  });
});

describe('describePermission: an agent asks to run a command', () => {
  const p = perm({
    kind: 'agent',
    toolCall: { toolCallId: 'c1', title: 'npm test', kind: 'execute', rawInput: { command: 'npm test' } },
    request: {
      kind: 'execute',
      title: 'npm test',
      command: 'touch X',
      argv: ['touch', 'X Y'],
      cwd: '/home/u/p',
      env: [{ name: 'PATH', value: '/tmp/evil:/usr/bin' }, { name: 'TOKEN', hidden: true }],
      flags: ['env_changes_program', 'title_differs'],
    },
  });
  const v = describePermission(p);
  it('leads with what runs, not the title', () => {
    expect(v.kindLabel).toBe('Agent request: run a command');
    expect(v.headline).toBe("touch 'X Y'");
    expect(v.commandLine).toBe("touch 'X Y'");
    expect(v.argv).toEqual(['touch', 'X Y']);
    expect(v.agentWords).toBe('npm test');
    expect(v.described).toBe(true);
  });
  it('shows the environment: values that change the program, hidden ones by name', () => {
    expect(v.env).toEqual([
      { name: 'PATH', value: '/tmp/evil:/usr/bin', program: true },
      { name: 'TOKEN', program: false },
    ]);
    expect(v.details).toEqual([
      "Runs: touch 'X Y'",
      'In: /home/u/p',
      'Sets: PATH=/tmp/evil:/usr/bin TOKEN (value not shown)',
    ]);
  });
  it('warns in plain words', () => {
    expect(v.warnings).toEqual([
      { flag: 'env_changes_program', text: 'Sets variables that change which program runs' },
      { flag: 'title_differs', text: "The agent's title is not the command that runs" },
    ]);
    expect(v.rememberable).toBe(true);
  });
  it('does not highlight a value without env_changes_program', () => {
    const w = describePermission(perm({ kind: 'terminal', request: { argv: ['ls'], env: [{ name: 'PATH', value: '/x' }] } }));
    expect(w.env).toEqual([{ name: 'PATH', value: '/x', program: false }]);
  });
  it('shows the shell it runs through', () => {
    const w = describePermission(
      perm({ kind: 'terminal', request: { command: 'a; b', argv: ['/bin/sh', '-c', 'a; b'], flags: ['shell'] } }),
    );
    expect(w.headline).toBe("/bin/sh -c 'a; b'");
    expect(w.warnings[0].text).toBe('Runs through a shell: the exact program is not known in advance');
  });
  it('shows a command without argv escaped', () => {
    const w = describePermission(perm({ request: { command: 'ls\n-l' } }));
    expect(w.headline).toBe('ls\\n-l');
  });
});

describe('describePermission: files', () => {
  it('lists the paths', () => {
    const v = describePermission(
      perm({
        kind: 'file',
        toolCall: { toolCallId: 'c', title: 'Read config', kind: 'read' },
        request: { kind: 'read', title: 'Read config', paths: ['/etc/a', '/etc/b'], flags: ['outside_folder', 'dot_dot'] },
      }),
    );
    expect(v.kindLabel).toBe('Read a file outside the folder');
    expect(v.headline).toBe('/etc/a, /etc/b');
    expect(v.details).toEqual(['File: /etc/a', 'File: /etc/b']);
    expect(v.warnings.map((w) => w.text)).toEqual([
      "Reaches outside the thread's folder",
      'A path goes up with “..”: where it lands depends on links',
    ]);
  });
  it("the hub's own titles are not the agent's words", () => {
    const v = describePermission(
      perm({ kind: 'file', request: { kind: 'read', title: 'fs/read_text_file /etc/a', paths: ['/etc/a'] } }),
    );
    expect(v.agentWords).toBe('');
    expect(v.hubWords).toBe('');
    const t = describePermission(perm({ kind: 'terminal', request: { kind: 'execute', title: 'ls', argv: ['ls'] } }));
    expect(t.agentWords).toBe('');
    expect(t.headline).toBe('ls');
  });
  it('git settings are never remembered', () => {
    const v = describePermission(
      perm({ kind: 'git', request: { kind: 'edit', paths: ['/p/.git/config'], flags: ['git_settings'] } }),
    );
    expect(v.kindLabel).toBe("Change git's own settings");
    expect(v.rememberable).toBe(false);
    expect(v.warnings[0].text).toBe("Changes git's own settings — git may run commands from these files");
  });
});

describe('kindLabel and flagText', () => {
  it.each<[PermissionKind | undefined, string | undefined, string]>([
    ['terminal', 'execute', 'Run a command'],
    ['file', 'read', 'Read a file outside the folder'],
    ['file', 'edit', 'Write a file outside the folder'],
    ['git', 'edit', "Change git's own settings"],
    ['budget', undefined, 'Spending limit'],
    ['agent', 'execute', 'Agent request: run a command'],
    ['agent', undefined, 'Agent request'],
    [undefined, 'fetch', 'Agent request: fetch from the web'],
    [undefined, 'nonsense', 'Agent request'],
  ])('%s/%s → %s', (kind, acp, want) => {
    expect(kindLabel(kind, acp)).toBe(want);
  });
  it('every flag has words of its own; an unknown one still warns', () => {
    const flags = ['shell', 'conflicting_command', 'title_differs', 'malformed', 'dot_dot', 'outside_folder', 'git_settings', 'env_changes_program', 'overlap'];
    const words = flags.map(flagText);
    expect(new Set(words).size).toBe(flags.length);
    expect(words).not.toContain(flagText('new_flag'));
    expect(flagText('new_flag')).toBe('Unusual request: check it closely');
    expect(flagText('conflicting_command')).toBe('The agent named two different commands');
    expect(flagText('malformed')).toBe('Part of the request could not be read: check it closely');
    expect(flagText('toString')).toBe('Unusual request: check it closely');
  });
  it('a budget request is not rememberable, and its title is the hub’s words', () => {
    const v = describePermission(
      perm({ kind: 'budget', toolCall: { toolCallId: 'b' }, request: { title: 'Daily limit $5.00 reached: $5.12 spent' } }),
    );
    expect(v.rememberable).toBe(false);
    expect(v.kindLabel).toBe('Spending limit');
    expect(v.headline).toBe('Daily limit $5.00 reached: $5.12 spent');
    expect(v.hubWords).toBe('Daily limit $5.00 reached: $5.12 spent');
    expect(v.agentWords).toBe('');
    expect(v.details).toEqual(['Daily limit $5.00 reached: $5.12 spent']);
  });
});

describe('describePermission: stored before requests were described', () => {
  it('falls back to the tool call', () => {
    const v = describePermission(
      perm({
        toolCall: {
          toolCallId: 'c',
          title: 'Run tests',
          kind: 'execute',
          rawInput: { command: ['npm', 'test'], env: ['CI', 42] },
          locations: [{ path: '/p/a' }],
        },
      }),
    );
    expect(v.described).toBe(false);
    expect(v.kindLabel).toBe('Agent request: run a command');
    expect(v.headline).toBe('npm test');
    expect(v.env).toEqual([{ name: 'CI', program: false }]);
    expect(v.paths).toEqual(['/p/a']);
    expect(v.agentWords).toBe('Run tests');
    expect(v.warnings).toEqual([]);
    expect(v.rememberable).toBe(true);
  });
  it('with only a title, quotes it as the agent\'s words', () => {
    const v = describePermission(perm({ toolCall: { toolCallId: 'c', title: 'Think hard' } }));
    expect(v.headline).toBe('“Think hard”');
    expect(v.details).toEqual([]);
  });
  it('with nothing at all', () => {
    const v = describePermission(perm({ toolCall: { toolCallId: 'c' } }));
    expect(v.headline).toBe('The agent asks for permission');
    expect(v.agentWords).toBe('');
  });
});

describe('cardName', () => {
  it('names a card by what runs, else the paths, else the title, else the kind', () => {
    expect(cardName(perm({ request: { title: 'npm test', argv: ['touch', 'X'] } }))).toBe('touch X');
    expect(cardName(perm({ request: { title: 'Edit', paths: ['/a', '/b'] } }))).toBe('/a, /b');
    expect(cardName(perm({ request: { title: 'Hostile ask', flags: ['malformed'] } }))).toBe('Hostile ask');
    // A malformed call whose title the hub did not keep: the tool call's, still the agent's words.
    const hostile = perm({ kind: 'agent', toolCall: { toolCallId: 'p1', title: 'Hostile ask' }, request: { flags: ['malformed'] } });
    expect(cardName(hostile)).toBe('Hostile ask');
    expect(describePermission(hostile).agentWords).toBe('Hostile ask');
    expect(cardName(perm({ kind: 'git', request: {} }))).toBe("Change git's own settings");
    expect(cardName(perm())).toBe('npm test');
    expect(cardName(perm({ toolCall: { toolCallId: 'c' } }))).toBe('tool call');
  });
});
