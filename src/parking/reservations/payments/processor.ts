/**
 * The payment-processor port. Card numbers and CVCs only ever pass through `tokenize` (never
 * stored, never logged); everything kept afterwards is the processor's token and the last four
 * digits. Charges happen inside the reservation transaction: a decline rolls the reservation back.
 */

/** Card details as a client sends them; exists only for the duration of one request. */
export interface CardInput {
  number: string;
  expiryMonth: number;
  expiryYear: number;
  cvc?: string;
}

/** A tokenized payment method: what may be stored. */
export interface PaymentMethod {
  processor: string;
  token: string;
  /** last four digits of the card number ('' when the token does not tell) */
  last4: string;
}

/** Outcome of a charge. */
export type ChargeResult = { ok: true; chargeId: string } | { ok: false; reason: string };

/** A payment processor (the built-in test processor, or a real one wired at the composition root). */
export interface PaymentProcessor {
  /** name stored beside tokens and charges, e.g. `test` */
  readonly name: string;
  /** Turns card details into a token. Throws PARKING_PARAM_INVALID on malformed card data. */
  tokenize(card: CardInput, nowMs: number): Promise<PaymentMethod>;
  /** Describes a token the client obtained from the processor directly. Throws PARKING_PARAM_INVALID when unknown. */
  describeToken(token: string): Promise<PaymentMethod>;
  /** Charges `amountCents` (in `currencyIso`) to `token`; `reference` is the reservation id. */
  charge(token: string, amountCents: number, currencyIso: string, reference: string): Promise<ChargeResult>;
  /** Refunds a charge (cancellation). */
  refund(chargeId: string, amountCents: number): Promise<void>;
}
