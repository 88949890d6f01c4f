import { describe, expect, it } from 'vitest';
import { checkForm, fieldsOf, initialValues, linkParts, type ElicitationSchema } from './elicitation';

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
