import { describe, expect, it } from 'vitest';
import {
  nextStatus,
  parseAction,
  RESERVATION_ACTIONS,
  ReservationStatus as S,
  type ReservationStatusCode,
} from './state-machine.js';

describe('reservation state machine', () => {
  // every (status, action) pair: the documented table, everything else illegal
  const expected: Record<ReservationStatusCode, Partial<Record<string, ReservationStatusCode>>> = {
    [S.QUOTED]: { Reserve: S.RESERVED, Cancel: S.CANCELLED },
    [S.RESERVED]: { Scan: S.SCANNED, Redeem: S.REDEEMED, Cancel: S.CANCELLED },
    [S.SCANNED]: { Redeem: S.REDEEMED },
    [S.REDEEMED]: {},
    [S.CANCELLED]: {},
    [S.EXPIRED]: {},
  };
  for (const [from, row] of Object.entries(expected)) {
    for (const action of RESERVATION_ACTIONS) {
      const to = row[action];
      it(`${action} from status ${from} ${to === undefined ? 'is illegal' : `leads to ${to}`}`, () => {
        expect(nextStatus(Number(from) as ReservationStatusCode, action)).toBe(to);
      });
    }
  }

  it('parses action names case-insensitively and rejects others', () => {
    expect(parseAction('cancel')).toBe('Cancel');
    expect(parseAction(' SCAN ')).toBe('Scan');
    expect(parseAction('Refund')).toBeUndefined();
  });
});
