/** Absolute on Unix (/…), Windows (C:\… or C:/…) or UNC (\\server\…). */
export function isAbsolute(p: string): boolean {
  return /^\//.test(p) || /^[A-Za-z]:[\\/]/.test(p) || /^\\\\[^\\]/.test(p);
}
