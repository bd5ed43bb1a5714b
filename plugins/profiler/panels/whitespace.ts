// Whitespace as a regular expression's \s reads it, one UTF-16 code unit at a time: for the
// collectors' character loops that stand in for a regex on every statement and log line.

/** Whether the code unit is what \s matches (ASCII space and controls first, the rest through \s). */
export const isSpace = (c: number): boolean => c === 32 || (c >= 9 && c <= 13) || (c >= 0xa0 && /\s/.test(String.fromCharCode(c)))
