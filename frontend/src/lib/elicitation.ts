// An agent's question (ACP elicitation/create, docs/API.md "Elicitations"):
// a form rendered from a flat schema, or a link opened in the user's
// browser. The hub checks both before anyone sees them (a form of string,
// number, integer and boolean fields; an http(s) link without user info)
// and checks the answer again; this module renders and checks the same
// rules before sending, so the user sees what is wrong at once.

export type ElicitationStatus = 'pending' | 'accepted' | 'declined' | 'cancelled' | 'expired';
export type ElicitAction = 'accept' | 'decline' | 'cancel';

export interface ElicitationField {
  type: 'string' | 'number' | 'integer' | 'boolean';
  title?: string;
  description?: string;
  enum?: string[];
  oneOf?: { const: string; title?: string }[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  /** A string's format; the hub keeps only these. */
  format?: 'email' | 'uri' | 'date' | 'date-time';
  /**
   * A pattern the hub checks (RE2) when the form is sent. Never run here:
   * a browser's regexp engine backtracks, and an agent's pattern could
   * hang the window; a refusal names the field.
   */
  pattern?: string;
}

export interface ElicitationSchema {
  type?: 'object';
  title?: string;
  description?: string;
  properties?: Record<string, ElicitationField>;
  required?: string[];
}

export interface Elicitation {
  id: string;
  threadId: string;
  turnId: string;
  mode: 'form' | 'url';
  message: string;
  requestedSchema?: ElicitationSchema;
  url?: string;
  toolCallId?: string;
  status: ElicitationStatus;
  deadline: string;
  decidedBy?: string;
  decidedAt?: string;
  createdAt: string;
  agent?: string;
}

export interface ElicitationAnswer {
  action: ElicitAction;
  content?: Record<string, string | number | boolean>;
}

/** A form field, named, in the agent's order. */
export interface Field extends ElicitationField {
  name: string;
  required: boolean;
  /** The choices of an enum: value and label. */
  choices?: { value: string; label: string }[];
}

const kinds = new Set(['string', 'number', 'integer', 'boolean']);

/** The form's fields in the agent's order; a field of an unknown type is left out (the hub refuses such forms). */
export function fieldsOf(schema: ElicitationSchema | undefined): Field[] {
  const props = schema?.properties;
  if (!props || typeof props !== 'object') return [];
  const req = new Set(Array.isArray(schema?.required) ? schema.required : []);
  const out: Field[] = [];
  for (const [name, f] of Object.entries(props)) {
    if (!f || typeof f !== 'object' || !kinds.has(f.type)) continue;
    const field: Field = { ...f, name, required: req.has(name) };
    if (Array.isArray(f.oneOf) && f.oneOf.length) {
      field.choices = f.oneOf.map((o) => ({ value: String(o.const), label: o.title || String(o.const) }));
    } else if (Array.isArray(f.enum) && f.enum.length) {
      field.choices = f.enum.map((v) => ({ value: String(v), label: String(v) }));
    }
    out.push(field);
  }
  return out;
}

/** A form's values as the inputs hold them: text for text and number inputs, a boolean for a checkbox. */
export type FormValues = Record<string, string | boolean>;

/** The values the form starts with: each field's default when it has a valid one. */
export function initialValues(fields: Field[]): FormValues {
  const v: FormValues = {};
  for (const f of fields) {
    if (f.type === 'boolean') v[f.name] = f.default === true;
    else if (f.default !== undefined && f.default !== null) v[f.name] = f.format === 'date-time' ? localInput(String(f.default)) : String(f.default);
    else v[f.name] = '';
  }
  return v;
}

/** The input type of a text field: the browser's own for a format (a date picker, an email keyboard). */
export function inputType(f: Field): 'text' | 'email' | 'url' | 'date' | 'datetime-local' {
  switch (f.format) {
    case 'email':
      return 'email';
    case 'uri':
      return 'url';
    case 'date':
      return 'date';
    case 'date-time':
      return 'datetime-local';
  }
  return 'text';
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** An RFC 3339 date-time as a datetime-local input shows it (local time); '' when it is not one. */
export function localInput(rfc3339: string): string {
  const d = new Date(rfc3339);
  if (Number.isNaN(d.getTime())) return '';
  const secs = d.getSeconds() ? `:${pad(d.getSeconds())}` : '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}${secs}`;
}

/** A datetime-local input's value (local time) as RFC 3339 in UTC; null when it is not one. */
export function rfc3339(local: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(local)) return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** A date input's value when it is a real date (YYYY-MM-DD). */
function isDate(s: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(s);
  if (!m) return false;
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  return d.getUTCFullYear() === +m[1] && d.getUTCMonth() === +m[2] - 1 && d.getUTCDate() === +m[3];
}

/** How text fails f's format, as the hub checks it; '' when it does not. */
function formatError(f: Field, text: string): string {
  switch (f.format) {
    case 'email': {
      const at = text.lastIndexOf('@');
      return at <= 0 || at === text.length - 1 || /\s/.test(text) ? 'An email address.' : '';
    }
    case 'uri':
      try {
        return /\s/.test(text) || !new URL(text).protocol ? 'A full address, such as https://…' : '';
      } catch {
        return 'A full address, such as https://…';
      }
    case 'date':
      return isDate(text) ? '' : 'A date.';
    case 'date-time':
      return rfc3339(text) === null ? 'A date and time.' : '';
  }
  return '';
}

/**
 * Checks the form as the hub will: a required field filled, a number a
 * number (an integer whole), within its bounds, a text within its lengths
 * and of its format (a date-time input's local time sent as RFC 3339), an
 * enum one of its choices. The pattern is the hub's to check (Field). Answers the content to send (empty optional
 * fields left out) and an error per field.
 */
export function checkForm(
  fields: Field[],
  values: FormValues,
): { content: Record<string, string | number | boolean>; errors: Record<string, string> } {
  const content: Record<string, string | number | boolean> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const raw = values[f.name];
    if (f.type === 'boolean') {
      content[f.name] = raw === true;
      continue;
    }
    const text = typeof raw === 'string' ? raw : '';
    if (text === '' || (f.type !== 'string' && text.trim() === '')) {
      if (f.required) errors[f.name] = 'Required.';
      continue;
    }
    if (f.type === 'string') {
      const n = [...text].length;
      if (f.minLength !== undefined && n < f.minLength) errors[f.name] = `At least ${f.minLength} characters.`;
      else if (f.maxLength !== undefined && n > f.maxLength) errors[f.name] = `At most ${f.maxLength} characters.`;
      else if (f.choices && !f.choices.some((c) => c.value === text)) errors[f.name] = 'Choose one of the options.';
      else if (formatError(f, text)) errors[f.name] = formatError(f, text);
      else content[f.name] = f.format === 'date-time' ? (rfc3339(text) as string) : text;
      continue;
    }
    const x = Number(text.trim());
    if (!/^-?\d+(\.\d+)?([eE][-+]?\d+)?$/.test(text.trim()) || !Number.isFinite(x)) errors[f.name] = 'A number.';
    else if (f.type === 'integer' && !Number.isInteger(x)) errors[f.name] = 'A whole number.';
    else if (f.minimum !== undefined && x < f.minimum) errors[f.name] = `At least ${f.minimum}.`;
    else if (f.maximum !== undefined && x > f.maximum) errors[f.name] = `At most ${f.maximum}.`;
    else content[f.name] = x;
  }
  return { content, errors };
}

/**
 * A link split for display: the host emphasised between what comes before
 * (the scheme) and after (path, query). null when it is not an http(s) URL
 * with a host and no user info: such a link is never offered (the hub
 * refuses them too).
 */
export function linkParts(raw: string | undefined): { before: string; host: string; after: string; href: string } | null {
  if (!raw) return null;
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return null;
  }
  if ((u.protocol !== 'http:' && u.protocol !== 'https:') || !u.hostname || u.username || u.password) return null;
  const before = `${u.protocol}//`;
  const host = u.host;
  const after = u.href.slice(before.length + host.length);
  return { before, host, after, href: u.href };
}
