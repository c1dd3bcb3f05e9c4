// operationId -> handler, one registry per document, merged from one file per area;
// test/http/registry.test.ts checks that every operation of the spec has exactly one handler.
import type { Handler } from '../context';
import * as adminCollections from './admin-collections';
import * as adminMerchants from './admin-merchants';
import * as auth from './auth';
import * as cards from './cards';
import * as collections from './collections';
import * as dashboardBusiness from './dashboard-business';
import * as dashboardSession from './dashboard-session';
import * as dashboardUsers from './dashboard-users';
import * as disbursements from './disbursements';
import * as disputes from './disputes';
import * as notifications from './notifications';
import * as paymentLinks from './payment-links';
import * as processors from './processors';
import * as reconciliation from './reconciliation';
import * as refunds from './refunds';
import * as reports from './reports';
import * as sandbox from './sandbox';
import * as wallets from './wallets';

const areas = [adminCollections, adminMerchants, auth, cards, collections, dashboardBusiness, dashboardSession, dashboardUsers, disbursements, disputes, notifications, paymentLinks, processors, reconciliation, refunds, reports, sandbox, wallets];

interface Area {
  merchant: Record<string, Handler>;
  admin: Record<string, Handler>;
}

function merge(pick: (a: Area) => Record<string, Handler>): Record<string, Handler> {
  const out: Record<string, Handler> = {};
  for (const area of areas as Area[]) {
    for (const [id, h] of Object.entries(pick(area))) {
      if (out[id]) throw new Error(`two handlers for ${id}`);
      out[id] = h;
    }
  }
  return out;
}

export const merchantHandlers: Record<string, Handler> = merge((a) => a.merchant);
export const adminHandlers: Record<string, Handler> = merge((a) => a.admin);
