// The card encryption key: its public half for merchants, its rotation for the operator.
import { ok } from '../envelope';
import { typedHandlers } from '../typed';

const PEM = 'application/x-pem-file';

export const merchant = typedHandlers({
  /**
   * PEM unless the caller asks for JSON: `curl > key.pem` (Accept `*\/*` or none) keeps working, and a
   * generated client (Accept `application/json`) gets the envelope with the key id.
   */
  getPublicKey: async (_input, ctx) => {
    const key = await ctx.services.cards.publicKey();
    if (ctx.req.accepts([PEM, 'application/json']) === 'application/json') return ok(key, 'Public key retrieved', { Vary: 'Accept' });
    return { body: key.public_key, contentType: PEM, headers: { 'Key-Id': key.key_id, Vary: 'Accept' } };
  },

  getCurrentCardKey: async (_input, ctx) => ok(await ctx.services.cards.publicKey(), 'Card key retrieved'),
});

export const admin = typedHandlers({
  rotateCardKey: async (_input, ctx) => ok(await ctx.services.cards.rotate(), 'Card key rotated'),
});
