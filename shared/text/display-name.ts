/**
 * Why a name someone gave is unfit to show to other people, or undefined when it is fit. Names are
 * shown in the workspace, the CLI and logs: control characters can forge lines and move the
 * cursor, a lone surrogate is no character at all, and bidirectional overrides and isolates
 * (U+202A–U+202E, U+2066–U+2069) make text read differently from what it is ("Trojan Source").
 */
export function displayNameProblem(name: string): string | undefined {
  // Cc: the C0 controls, DEL and the C1 controls; tabs and line breaks included, a name is one line.
  if (/\p{Cc}/u.test(name)) return 'must not contain control characters (line breaks and tabs included)';
  if (/[\u202a-\u202e\u2066-\u2069]/u.test(name)) return 'must not contain bidirectional override or isolate characters';
  // Cs: in a u-mode pattern only an unpaired surrogate is one; a pair is read as the character it makes.
  if (/\p{Cs}/u.test(name)) return 'must not contain lone surrogates (text that is not Unicode)';
  return undefined;
}
