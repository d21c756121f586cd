import { describe, expect, it } from 'vitest';
import { applyDelta, parseNamespaceUpdate, type NamespaceList } from './namespaces.js';

const lists = (p: string[], q: string[], r: string[]): Record<NamespaceList, string[]> => ({
  provisioned: p,
  pending: q,
  reviewRequired: r,
});

describe('applyDelta', () => {
  it('applies replace, then remove, then add within a list', () => {
    const l = lists(['a', 'b'], [], []);
    applyDelta(l, { provisioned: { replace: ['c', 'd', 'c'], remove: ['d'], add: ['d', 'e', 'e'] } });
    expect(l.provisioned).toEqual(['c', 'd', 'e']);
  });

  it('moves an id out of the other lists when it is added or replaced into one', () => {
    const l = lists(['a', 'b'], ['c'], ['d']);
    applyDelta(l, { pending: { add: ['a'] }, reviewRequired: { replace: ['b', 'x'] } });
    expect(l).toEqual(lists([], ['c', 'a'], ['b', 'x']));
  });

  it('rejects a request that puts one id into two lists', () => {
    expect(() => parseNamespaceUpdate({ provisioned: { add: ['a'] }, pending: { replace: ['a'] } }, 'n')).toThrow(
      /also put into/,
    );
    expect(() => parseNamespaceUpdate({ provisioned: { insert: ['a'] } }, 'n')).toThrow(/provisioned\.insert/);
    expect(() => parseNamespaceUpdate({ namespace: 'other' }, 'n')).toThrow(/namespace/);
  });
});
