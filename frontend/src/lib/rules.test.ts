import { describe, expect, it } from 'vitest';
import { emptyRuleForm, formToRule, rememberedWords, ruleErrorField, ruleFormErrors, ruleSummary, ruleToForm, splitList } from './rules';
import { HubError } from './transport';
import type { PermissionRule, RememberedRule } from './types';

const rule: PermissionRule = {
  name: 'reads-in-project',
  agents: ['*'],
  folders: ['~/src/**'],
  kinds: ['read', 'search'],
  inside: 'folder',
  decision: 'allow',
};

describe('rule form', () => {
  it('round-trips a rule, lists typed comma-separated, empty fields left out', () => {
    expect(formToRule(ruleToForm(rule))).toEqual(rule);
    expect(splitList(' a, ,b ,')).toEqual(['a', 'b']);
    const f = { ...emptyRuleForm(), name: ' no-rm ', kinds: ['execute'], match: ' ^rm ', decision: 'deny' as const };
    expect(formToRule(f)).toEqual({ name: 'no-rm', kinds: ['execute'], match: ' ^rm ', decision: 'deny' }); // a regexp's spaces count
    // Kinds keep the ACP order whatever order they were checked in.
    expect(formToRule({ ...f, kinds: ['search', 'read'] }).kinds).toEqual(['read', 'search']);
  });

  it('checks the name (given, no spaces, unique) before a round trip', () => {
    expect(ruleFormErrors(emptyRuleForm(), []).name).toMatch(/Give the rule a name/);
    expect(ruleFormErrors({ ...emptyRuleForm(), name: 'a b' }, []).name).toMatch(/without spaces/);
    expect(ruleFormErrors({ ...emptyRuleForm(), name: 'x' }, ['x']).name).toMatch(/another rule/);
    expect(ruleFormErrors({ ...emptyRuleForm(), name: 'x' }, ['y'])).toEqual({});
  });

  it("puts the hub's refusal on the field it names, for the rule it names", () => {
    const err = (message: string, details?: Record<string, unknown>) => new HubError('INVALID_ARGUMENT', message, { details });
    expect(ruleErrorField(err('permissions.rules[1] "no-rm": match: error parsing regexp: missing closing )'), 1, 'no-rm')).toBe('match');
    expect(ruleErrorField(err('line 7: rule "kind-check": unknown kind "reed"'), 0, 'kind-check')).toBe('kinds');
    expect(ruleErrorField(err('rules[0]: folders: bad glob "[" '), 0, 'x')).toBe('folders');
    expect(ruleErrorField(err('rules[0]: folders: bad glob'), 1, 'y')).toBeUndefined(); // another rule
    // hub/policy's RuleError, as the config layer passes it on.
    const policy = 'config.yaml: line 12: permissions.rules[2] ("kinds-and-match"): match: invalid regular expression: missing )';
    expect(ruleErrorField(err(policy), 2, 'kinds-and-match')).toBe('match');
    expect(ruleErrorField(err(policy), 1, 'other')).toBeUndefined();
    expect(ruleErrorField(err('permissions.rules[0] ("a"): kinds: unknown kind "reed" (read, edit)'), 0, 'a')).toBe('kinds');
    // The settings endpoint's details (app/config): rule index and field path.
    expect(ruleErrorField(err('bad', { rule: 2, field: 'permissions.rules[2].decision' }), 2, 'z')).toBe('decision');
    expect(ruleErrorField(err('bad', { rule: 2, field: 'permissions.rules[2].match' }), 1, 'y')).toBeUndefined();
    expect(ruleErrorField(err('bad', { rule: 'z', field: 'kind' }), 2, 'z')).toBe('kinds');
    expect(ruleErrorField(new HubError('CONFLICT', 'rules[0] match: fix the file first'), 0, 'x')).toBeUndefined();
  });
});

describe('rules in words', () => {
  it('summarises a config rule', () => {
    expect(ruleSummary(rule)).toBe('read, search · inside the folder · agents * · in ~/src/** → Allow once');
    expect(ruleSummary({ name: 'x', match: 'rm', decision: 'deny' })).toBe('any kind · matching /rm/ → Deny');
  });

  it('says what a remembered decision does', () => {
    const r: RememberedRule = {
      id: 'ru_1',
      scope: 'thread',
      threadId: 'th_1',
      agent: 'sdk',
      kind: 'execute',
      command: 'go test ./...',
      decision: 'allow',
      createdAt: '',
      createdBy: 'window',
      permissionId: 'pe_1',
    };
    expect(rememberedWords(r, 'Fix the build')).toBe('Always allow execute “go test ./...” in thread Fix the build.');
    expect(rememberedWords({ ...r, scope: 'folder', cwd: '/src/app', kind: 'read', command: undefined, decision: 'deny' })).toBe(
      'Always deny read inside the folder in folder /src/app.',
    );
    expect(rememberedWords({ ...r, scope: 'agent' })).toBe('Always allow execute “go test ./...” in agent sdk.');
  });
});
