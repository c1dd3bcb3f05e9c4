// What a collection's life is built from besides Base (src/wiring.ts hands them in): the services its
// flows call. The card charge is a callback: it runs in the checkouts of processor-requests/, which are
// built after this wing and call back into it.
import type { CardService } from '../cards/card-keys';
import type { CollectionRow } from '../domain/collection';
import type { CardDetails } from '../domain/card';
import type { AccessTokenService } from '../merchants/access-tokens';
import type { ConfigCache } from '../merchants/config-cache';
import type { PricingService } from '../merchants/pricing';
import type { QuoteService } from '../merchants/quotes';
import type { LedgerService } from '../ledger/ledger';
import type { NotificationService } from '../notifications/notifications';
import type { Processors } from '../processors';
import type { RoutingTurns } from './routing-turns';

/**
 * The services a collection's life calls. The card charge is a callback: it runs in the checkouts of
 * processor-requests/, which are built after this service and call back into it.
 */
export interface CollectionParts {
  accessTokens: AccessTokenService;
  cards: CardService;
  chargeCard: (row: CollectionRow, card: CardDetails) => Promise<CollectionRow>;
  configCache: ConfigCache;
  ledger: LedgerService;
  notifications: NotificationService;
  pricing: PricingService;
  processors: Processors;
  /** FX quotes a request-to-pay may name (merchants/quotes.ts) */
  quotes: QuoteService;
  routingTurns: RoutingTurns;
  /**
   * The payment links' part of a state change (${@links} of sql/move.sql; payment-links/ is built on
   * collections, so its SQL is handed in): a completion counted on its link, and the link's end told.
   */
  linkCompletionCtes: string;
}
