// The window's bound Go methods, typed from the generated declarations: no
// method is declared by hand. transport.ts, work.ts and sessions.ts pick
// what they call from WailsBindings.

/**
 * The bound methods as Wails generates them from app.Bindings (`make
 * bindings`, committed in frontend/wailsjs/go/app/Bindings.d.ts).
 * WailsBindings is derived from them, so a binding renamed, removed or
 * given other parameters in Go fails `npm run check` here once the files
 * are regenerated, and Go's TestWailsJSUpToDate fails while they are not.
 */
type Generated = typeof import('../../wailsjs/go/app/Bindings');

/**
 * What the UI passes for a generated parameter type: a string, number or
 * boolean as generated; a hub struct (a class in models.ts) as a plain
 * object of its JSON fields, each optional and nullable as Go's JSON
 * decoding allows; raw JSON and time fields, which models.ts types as
 * number[] and any, as anything (their shapes are types.ts's, docs/API.md's).
 */
type Sent<P> = 0 extends 1 & P
  ? unknown
  : P extends string | number | boolean | undefined
    ? P
    : P extends number[]
      ? unknown
      : P extends readonly (infer E)[]
        ? Sent<E>[]
        : { [K in keyof P as P[K] extends (...args: never[]) => unknown ? never : K]?: Sent<P[K]> | null };

/** A generated binding, taking what the UI sends (Sent); its promise's value is unwrapped by WailsTransport. */
type Bound<F> = F extends (...args: infer A) => infer R ? (...args: { [I in keyof A]: Sent<A[I]> }) => R : never;

/** The window's bound object window.go.app.Bindings, typed by the generated declarations. */
export type WailsBindings = { [K in Exclude<keyof Generated, 'ChooseFolder'>]: Bound<Generated[K]> } & {
  /** Optional: without it WailsTransport has no chooseFolder and the folder is typed instead. */
  ChooseFolder?: Bound<Generated['ChooseFolder']>;
};

