import { describe, expect, it } from 'vitest';
import { compactId, isRecent, KnownList, tellCases, tellTerm } from '../../../shared/register/stream/known-resources';

describe('the memory of what the stream told, by identity', () => {
  it('calls a date recent when it is no more than 30 days before the event was published, or after it', () => {
    expect(isRecent('2024-04-20', '2024-05-20T09:00:00')).toBe(true);
    expect(isRecent('2024-04-19', '2024-05-20T09:00:00')).toBe(false);
    expect(isRecent('2024-05-21', '2024-05-20T09:00:00')).toBe(true);
  });

  it('tells a new term once, a term it knows as running when it ends, and nothing of a term republished', () => {
    const list = new KnownList(undefined, 10);

    const appointed = tellTerm(list, { id: 'Zr4Kp0qWd9_sLm2NvBx7Yt1cHa8', from: '2024-05-15', to: null }, '2024-05-16T09:00:00');
    const again = tellTerm(list, { id: 'Zr4Kp0qWd9_sLm2NvBx7Yt1cHa8', from: '2024-05-15', to: null }, '2024-05-17T09:00:00');
    const old = tellTerm(list, { id: 'gE7Pw_lx4HWJvqSfwqudfusS9Ig', from: '2018-09-24', to: null }, '2024-05-17T09:00:00');
    // Resigned with a date already two months past when told: still news, since the memory held the appointment as running.
    const resigned = tellTerm(list, { id: 'gE7Pw_lx4HWJvqSfwqudfusS9Ig', from: '2018-09-24', to: '2024-03-31' }, '2024-06-01T09:00:00');
    const resignedAgain = tellTerm(
      list,
      { id: 'gE7Pw_lx4HWJvqSfwqudfusS9Ig', from: '2018-09-24', to: '2024-03-31' },
      '2024-06-09T09:00:00',
    );
    const endedLongAgo = tellTerm(list, { id: 'Qk9aN3b0Xc1_vTq8WmYpLr2sJd4', from: '2012-03-01', to: '2016-07-31' }, '2024-06-09T09:00:00');

    expect([appointed, again, old, resigned, resignedAgain, endedLongAgo]).toEqual([
      { began: '2024-05-15' },
      {},
      {},
      { ended: '2024-03-31' },
      {},
      {},
    ]);
  });

  it('keeps entries compact and only the newest told when a list is full', () => {
    const list = new KnownList(undefined, 3);
    for (const id of ['a1', 'b2', 'c3', 'd4']) tellTerm(list, { id, from: '2001-01-01', to: null }, '2024-05-16T09:00:00');
    tellTerm(list, { id: 'gE7Pw_lx4HWJvqSfwqudfusS9Ig', from: '2018-09-24', to: '2019-01-02' }, '2024-05-16T09:00:00');

    expect(list.text()).toBe(`c3=20010101/ d4=20010101/ ${compactId('gE7Pw_lx4HWJvqSfwqudfusS9Ig')}=20180924/20190102`);
    expect(compactId('gE7Pw_lx4HWJvqSfwqudfusS9Ig')).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(new KnownList(list.text(), 3).text()).toBe(list.text());
  });

  it('opens a case once when it is new, open and recent; never for one that ended or one of years ago', () => {
    const list = new KnownList(undefined, 10);
    const cvl = { key: '1', type: 'creditors-voluntary-liquidation', startedOn: '2024-05-21', endedOn: null };

    expect(tellCases(list, [cvl], '2024-05-22T10:00:00')).toEqual([cvl]);
    expect(tellCases(list, [cvl], '2024-06-02T10:00:00')).toEqual([]);
    expect(tellCases(list, [{ ...cvl, endedOn: '2024-06-28' }], '2024-06-29T10:00:00')).toEqual([]);
    expect(
      tellCases(
        new KnownList(undefined, 10),
        [
          { key: '1', type: 'in-administration', startedOn: '2009-02-02', endedOn: null },
          { key: '2', type: 'compulsory-liquidation', startedOn: '2024-05-01', endedOn: '2024-05-10' },
        ],
        '2024-05-20T10:00:00',
      ),
    ).toEqual([]);
  });
});
