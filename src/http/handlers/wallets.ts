// Wallet balances (merchant) and a wallet's ledger postings (operator).
import { toBalanceRecord } from '../../services/ledger';
import type { Handler } from '../context';
import { principalOf } from '../context';
import { ok } from '../envelope';
import { pageHeaders, pageOf } from '../paging';

const listWalletBalances: Handler = async (_c, ctx) => {
  const balances = await ctx.services.ledger.walletBalances(principalOf(ctx).businessId);
  return ok(balances.map(toBalanceRecord), 'Wallet balances retrieved');
};

const getWalletBalance: Handler = async (c, ctx) => {
  const balance = await ctx.services.ledger.walletBalance(principalOf(ctx).businessId, String(c.request.params.currency));
  return ok(toBalanceRecord(balance), 'Wallet balance retrieved');
};

const listWalletPostings: Handler = async (c, ctx) => {
  const businessId = Number(c.request.params.business_id);
  const currency = String(c.request.params.currency);
  const query = c.request.query as Record<string, unknown>;
  const page = pageOf(query);
  const { items, total } = await ctx.services.ledger.walletPostings(businessId, currency, page);
  const path = `/v1/admin/businesses/${businessId}/wallets/${currency}/postings`;
  return ok(items, 'Wallet postings retrieved', pageHeaders(ctx.services.config.publicBaseUrl, path, query, page, total));
};

export const merchant: Record<string, Handler> = { listWalletBalances, getWalletBalance };
export const admin: Record<string, Handler> = { listWalletPostings };
