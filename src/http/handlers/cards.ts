// The card encryption key: its public half for merchants, its rotation for the operator.
import type { Handler } from '../context';
import { ok } from '../envelope';

/** Always PEM, whatever Accept says (CONTRACT.md section 6). */
const getPublicKey: Handler = async (_c, ctx) => {
  const pem = await ctx.services.cards.publicKeyPem();
  return { body: pem, contentType: 'application/x-pem-file' };
};

const rotateCardKey: Handler = async (_c, ctx) => {
  const key = await ctx.services.cards.rotate();
  return ok(key, 'Card key rotated');
};

export const merchant: Record<string, Handler> = { getPublicKey };
export const admin: Record<string, Handler> = { rotateCardKey };
