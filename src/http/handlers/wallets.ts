// Wallet balances (merchant) and a wallet's ledger postings (operator).
import { toBalanceRecord } from '../../ledger/ledger';
import { principalOf } from '../context';
import { ok } from '../envelope';
import { pageOf, pageReply } from '../paging';
import { typedHandlers } from '../typed';

export const merchant = typedHandlers({
  listWalletBalances: async (_input, ctx) => {
    const balances = await ctx.services.ledger.walletBalances(principalOf(ctx).businessId);
    return ok(balances.map(toBalanceRecord), 'Wallet balances retrieved');
  },

  getWalletBalance: async ({ path }, ctx) => {
    const balance = await ctx.services.ledger.walletBalance(principalOf(ctx).businessId, path.currency);
    return ok(toBalanceRecord(balance), 'Wallet balance retrieved');
  },
});

export const admin = typedHandlers({
  listWalletPostings: async ({ path, query }, ctx) => {
    const page = pageOf(query);
    const postings = await ctx.services.ledger.walletPostings(Number(path.business_id), path.currency, page);
    return pageReply(ctx, query, page, postings, 'Wallet postings retrieved');
  },
});
