import { describe, expect, it } from 'vitest';
import { checkForm, fieldsOf, initialValues, inputType, linkParts, localInput, rfc3339, type ElicitationSchema } from './elicitation';

const schema: ElicitationSchema = {
  type: 'object',
  properties: {
    branch: { type: 'string', title: 'Branch', minLength: 2, maxLength: 5 },
    count: { type: 'integer', minimum: 1, maximum: 5, default: 2 },
    ratio: { type: 'number' },
    force: { type: 'boolean', default: true },
    color: { type: 'string', enum: ['red', 'green'] },
    size: { type: 'string', oneOf: [{ const: 's', title: 'Small' }, { const: 'l' }] },
    nested: { type: 'object' } as never,
  },
  required: ['branch', 'count'],
};

describe('fieldsOf', () => {
  it('keeps the order, marks required fields, reads enums and drops unknown types', () => {
    const f = fieldsOf(schema);
    expect(f.map((x) => x.name)).toEqual(['branch', 'count', 'ratio', 'force', 'color', 'size']);
    expect(f.filter((x) => x.required).map((x) => x.name)).toEqual(['branch', 'count']);
    expect(f[4].choices).toEqual([
      { value: 'red', label: 'red' },
      { value: 'green', label: 'green' },
    ]);
    expect(f[5].choices).toEqual([
      { value: 's', label: 'Small' },
      { value: 'l', label: 'l' },
    ]);
    expect(fieldsOf(undefined)).toEqual([]);
    expect(fieldsOf({ properties: 'x' as never })).toEqual([]);
  });
  it('starts from the defaults', () => {
    expect(initialValues(fieldsOf(schema))).toEqual({ branch: '', count: '2', ratio: '', force: true, color: '', size: '' });
  });
});

describe('checkForm', () => {
  const fields = fieldsOf(schema);
  const ok = { branch: 'main', count: '3', ratio: '0.5', force: false, color: 'green', size: 's' };
  it('answers typed content', () => {
    expect(checkForm(fields, ok)).toEqual({
      content: { branch: 'main', count: 3, ratio: 0.5, force: false, color: 'green', size: 's' },
      errors: {},
    });
  });
  it('leaves empty optional fields out', () => {
    expect(checkForm(fields, { ...ok, ratio: '', color: '', size: '' }).content).toEqual({ branch: 'main', count: 3, force: false });
  });
  it.each([
    [{ branch: '' }, 'branch', 'Required.'],
    [{ branch: 'm' }, 'branch', 'At least 2 characters.'],
    [{ branch: 'mainline' }, 'branch', 'At most 5 characters.'],
    [{ count: '' }, 'count', 'Required.'],
    [{ count: '1.5' }, 'count', 'A whole number.'],
    [{ count: '9' }, 'count', 'At most 5.'],
    [{ count: '0' }, 'count', 'At least 1.'],
    [{ count: '2x' }, 'count', 'A number.'],
    [{ ratio: 'Infinity' }, 'ratio', 'A number.'],
    [{ color: 'blue' }, 'color', 'Choose one of the options.'],
  ])('refuses %o', (change, field, why) => {
    const r = checkForm(fields, { ...ok, ...change });
    expect(r.errors).toEqual({ [field]: why });
    expect(field in r.content).toBe(false);
  });
});

describe('formats and patterns', () => {
  const fields = fieldsOf({
    type: 'object',
    properties: {
      mail: { type: 'string', format: 'email' },
      link: { type: 'string', format: 'uri' },
      day: { type: 'string', format: 'date' },
      when: { type: 'string', format: 'date-time', default: '2026-11-25T16:00:00Z' },
      code: { type: 'string', pattern: '(a+)+$' },
    },
  });

  it('gives each format the browser\'s own input, and a pattern none', () => {
    expect(fields.map(inputType)).toEqual(['email', 'url', 'date', 'datetime-local', 'text']);
  });

  it('checks a format as the hub does and sends a date-time as RFC 3339', () => {
    const when = localInput('2026-11-25T16:00:00Z');
    expect(initialValues(fields).when).toBe(when);
    expect(rfc3339(when)).toBe('2026-11-25T16:00:00.000Z');
    const ok = checkForm(fields, { mail: 'ann@example.org', link: 'https://example.org/x', day: '2026-02-28', when, code: 'b' });
    expect(ok.errors).toEqual({});
    expect(ok.content).toEqual({ mail: 'ann@example.org', link: 'https://example.org/x', day: '2026-02-28', when: '2026-11-25T16:00:00.000Z', code: 'b' });
    const bad = checkForm(fields, { mail: 'ann smith@x', link: 'example.org', day: '2026-02-30', when: '2026-11-25', code: '' });
    expect(Object.keys(bad.errors).sort()).toEqual(['day', 'link', 'mail', 'when']);
    expect(bad.content).toEqual({});
  });

  it('never runs an agent\'s pattern here (the hub checks it, in linear time)', () => {
    // (a+)+$ against many a's and a b backtracks for ages in a browser's engine.
    const r = checkForm(fields, { mail: '', link: '', day: '', when: '', code: 'a'.repeat(64) + 'b' });
    expect(r.errors).toEqual({});
    expect(r.content.code).toBe('a'.repeat(64) + 'b');
  });
});

describe('linkParts', () => {
  it('emphasises the host', () => {
    expect(linkParts('https://login.example.com:8443/device?code=1#x')).toEqual({
      before: 'https://',
      host: 'login.example.com:8443',
      after: '/device?code=1#x',
      href: 'https://login.example.com:8443/device?code=1#x',
    });
  });
  it.each([
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'https://bank.example@evil.example/',
    '//evil.example/',
    'not a url',
    '',
    undefined,
  ])('refuses %s', (u) => {
    expect(linkParts(u)).toBeNull();
  });
});
