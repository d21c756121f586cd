import { describe, expect, it } from 'vitest';
import { luhnValid, TestPaymentProcessor, TEST_CARD_DECLINED, TEST_CARD_VISA } from './test-processor.js';

const NOW = Date.UTC(2026, 10, 23);

describe('test payment processor', () => {
  const p = new TestPaymentProcessor();

  it('tokenizes the success card and charges it; the token carries only the last four digits', async () => {
    const m = await p.tokenize({ number: TEST_CARD_VISA, expiryMonth: 12, expiryYear: 2030, cvc: '123' }, NOW);
    expect(m.last4).toBe('4242');
    expect(m.token).not.toContain(TEST_CARD_VISA);
    expect(await p.charge(m.token, 1550, 'USD', 'r1')).toMatchObject({ ok: true });
    expect(await p.describeToken(m.token)).toEqual(m);
  });

  it('declines the decline card and the decline token', async () => {
    const m = await p.tokenize({ number: TEST_CARD_DECLINED, expiryMonth: 1, expiryYear: 2031 }, NOW);
    expect(await p.charge(m.token, 100, 'USD', 'r2')).toEqual({ ok: false, reason: 'card declined' });
    expect(await p.charge('tok_chargeDeclined', 100, 'USD', 'r3')).toEqual({ ok: false, reason: 'card declined' });
  });

  it('rejects bad numbers, past expiry dates, bad CVCs and unknown tokens', async () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
    await expect(p.tokenize({ number: '4242424242424241', expiryMonth: 1, expiryYear: 2031 }, NOW)).rejects.toThrow(
      /card-number/,
    );
    await expect(p.tokenize({ number: TEST_CARD_VISA, expiryMonth: 10, expiryYear: 2026 }, NOW)).rejects.toThrow(
      /expired/,
    );
    await expect(
      p.tokenize({ number: TEST_CARD_VISA, expiryMonth: 12, expiryYear: 2030, cvc: '12' }, NOW),
    ).rejects.toThrow(/card-cvc/);
    await expect(p.describeToken('tok_unknown')).rejects.toThrow(/token/);
  });
});
