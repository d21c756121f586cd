/**
 * The built-in test payment processor (development and tests; `processing_engine` = `test`).
 * Stateless: a token says whether it will succeed and its last four digits, so any process of a
 * deployment can charge a token another process issued. Documented in `docs/reservations.md`.
 *
 * Test cards (any future expiry, any 3-digit CVC):
 *   4242 4242 4242 4242  Visa, charges succeed
 *   5555 5555 5555 4444  Mastercard, charges succeed
 *   4000 0000 0000 0002  charges are declined
 *   any other Luhn-valid number succeeds; a number failing the Luhn check is rejected as invalid.
 * Ready-made tokens: `tok_visa`, `tok_mastercard` (succeed), `tok_chargeDeclined` (declines).
 */
import { randomBytes } from 'node:crypto';
import { invalidParam } from '../errors.js';
import type { CardInput, ChargeResult, PaymentMethod, PaymentProcessor } from './processor.js';

/** Card number whose charges the test processor always declines. */
export const TEST_CARD_DECLINED = '4000000000000002';
/** Card number whose charges always succeed. */
export const TEST_CARD_VISA = '4242424242424242';

const READY_TOKENS: Record<string, { ok: boolean; last4: string }> = {
  tok_visa: { ok: true, last4: '4242' },
  tok_mastercard: { ok: true, last4: '4444' },
  tok_chargeDeclined: { ok: false, last4: '0002' },
};

const ISSUED = /^tok_test_(ok|decline)_(\d{4})_[0-9a-f]{16}$/;

/** Luhn checksum of a digit string. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

/** The built-in test processor. */
export class TestPaymentProcessor implements PaymentProcessor {
  readonly name = 'test';

  /** Validates the card (Luhn, expiry not past, CVC 3–4 digits) and returns a token; the number is dropped. */
  async tokenize(card: CardInput, nowMs: number): Promise<PaymentMethod> {
    const digits = card.number.replace(/[\s-]/g, '');
    if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) throw invalidParam('card-number', 'not a valid card number');
    if (!Number.isInteger(card.expiryMonth) || card.expiryMonth < 1 || card.expiryMonth > 12)
      throw invalidParam('card_expiry_month', 'must be 1 to 12');
    if (!Number.isInteger(card.expiryYear) || card.expiryYear < 1000 || card.expiryYear > 9999)
      throw invalidParam('card_expiry_year', 'must have 4 digits');
    const now = new Date(nowMs);
    if (card.expiryYear * 12 + card.expiryMonth < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1)
      throw invalidParam('card_expiry_year', 'the card has expired');
    if (card.cvc !== undefined && !/^\d{3,4}$/.test(card.cvc)) throw invalidParam('card-cvc', 'must be 3 digits');
    const outcome = digits === TEST_CARD_DECLINED ? 'decline' : 'ok';
    const last4 = digits.slice(-4);
    return { processor: this.name, token: `tok_test_${outcome}_${last4}_${randomBytes(8).toString('hex')}`, last4 };
  }

  async describeToken(token: string): Promise<PaymentMethod> {
    const ready = READY_TOKENS[token];
    if (ready) return { processor: this.name, token, last4: ready.last4 };
    const m = ISSUED.exec(token);
    if (!m) throw invalidParam('token', 'unknown payment token');
    return { processor: this.name, token, last4: m[2] };
  }

  async charge(token: string, amountCents: number, _currencyIso: string, _reference: string): Promise<ChargeResult> {
    const ready = READY_TOKENS[token];
    const m = ISSUED.exec(token);
    if (!ready && !m) return { ok: false, reason: 'unknown payment token' };
    const ok = ready ? ready.ok : m?.[1] === 'ok';
    if (!ok) return { ok: false, reason: 'card declined' };
    if (!Number.isInteger(amountCents) || amountCents < 0) return { ok: false, reason: 'invalid amount' };
    return { ok: true, chargeId: `ch_test_${randomBytes(8).toString('hex')}` };
  }

  async refund(_chargeId: string, _amountCents: number): Promise<void> {
    // test charges hold no money: nothing to give back
  }
}
