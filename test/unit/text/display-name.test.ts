import { describe, expect, it } from 'vitest';
import { displayNameProblem } from '../../../shared/text/display-name';

describe('a name to show to people', () => {
  it.each([['Production'], ['Équipe paiements – café'], ['Alerts 🚨 (prod)'], ['שלום عربى 日本語']])('is fit: %s', (name) => {
    expect(displayNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['a line break', 'Prod\nFAKE LOG LINE', /control characters/],
    ['a tab', 'Prod\tx', /control characters/],
    ['a NUL', 'Prod\u0000', /control characters/],
    ['DEL', 'Prod\u007f', /control characters/],
    ['a C1 control', 'Prod\u009b31m', /control characters/],
    ['a right-to-left override', 'invoice\u202Efdp.exe', /bidirectional/],
    ['a left-to-right embedding', '\u202AProd', /bidirectional/],
    ['a first-strong isolate', 'Prod\u2068x\u2069', /bidirectional/],
    ['a lone high surrogate', 'Prod\ud800', /lone surrogates/],
    ['a lone low surrogate', '\udc00Prod', /lone surrogates/],
  ])('is refused with %s', (_what, name, reason) => {
    expect(displayNameProblem(name)).toMatch(reason);
  });
});
