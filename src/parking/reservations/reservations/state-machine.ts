/**
 * The reservation state machine over `pk_reservation_status` (documented in docs/reservations.md):
 *
 *   quoted (0) ──Reserve (pays)──► reserved (1) ──Scan──► scanned (3) ──Redeem──► redeemed (2)
 *      │                              │  └────────────Redeem──────────────────────►   ▲
 *      │                              └──Cancel (before the stay starts; refunds)──► cancelled (4)
 *      ├──Cancel──────────────────────────────────────────────────────────────────► cancelled (4)
 *      └──(quote older than its dt_expiration_date)───────────────────────────────► expired (5)
 *   reserved (1) never scanned nor redeemed by the end of the stay (no-show) ──────► expired (5)
 *
 * redeemed, cancelled and expired are final. Any other action on a state is PARKING_TRANSITION_INVALID.
 */

/** Integer `pk_reservation_status` values. */
export const ReservationStatus = {
  QUOTED: 0,
  RESERVED: 1,
  REDEEMED: 2,
  SCANNED: 3,
  CANCELLED: 4,
  EXPIRED: 5,
} as const;

/** One of the status integers. */
export type ReservationStatusCode = (typeof ReservationStatus)[keyof typeof ReservationStatus];

/** Names of the statuses, for messages and the `status_name` field. */
export const STATUS_NAMES: Record<ReservationStatusCode, string> = {
  0: 'quoted',
  1: 'reserved',
  2: 'redeemed',
  3: 'scanned',
  4: 'cancelled',
  5: 'expired',
};

/** Actions a client sends in `action`. */
export type ReservationAction = 'Reserve' | 'Scan' | 'Redeem' | 'Cancel';

/** All actions, as the contract spells them. */
export const RESERVATION_ACTIONS: readonly ReservationAction[] = ['Reserve', 'Scan', 'Redeem', 'Cancel'];

/** Allowed transitions: action → (from status → to status). */
const TRANSITIONS: Record<ReservationAction, Partial<Record<ReservationStatusCode, ReservationStatusCode>>> = {
  Reserve: { 0: 1 },
  Scan: { 1: 3 },
  Redeem: { 1: 2, 3: 2 },
  Cancel: { 0: 4, 1: 4 },
};

/** The status after `action` from `from`, or undefined when the transition is illegal. */
export function nextStatus(from: ReservationStatusCode, action: ReservationAction): ReservationStatusCode | undefined {
  return TRANSITIONS[action][from];
}

/** Parses an action name case-insensitively (`cancel` → `Cancel`); undefined when unknown. */
export function parseAction(text: string): ReservationAction | undefined {
  const t = text.trim().toLowerCase();
  return RESERVATION_ACTIONS.find((a) => a.toLowerCase() === t);
}
