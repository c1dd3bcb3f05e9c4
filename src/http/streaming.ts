// A response written a piece at a time (the reports' CSV files): each write waits while the client's
// socket is full, and a client that went away stops the writer instead of leaving it waiting.
import type { Response } from 'express';
import type { Logger } from '../log';
import type { Sink } from '../reports/csv';

export class ClientGone extends Error {}

export function responseSink(res: Response): Sink {
  return {
    write: async (chunk: string) => {
      if (res.destroyed || res.writableEnded) throw new ClientGone('the client closed the connection');
      if (res.write(chunk)) return;
      await new Promise<void>((resolve, reject) => {
        const settle = (gone: boolean) => () => {
          res.off('drain', drained);
          res.off('close', closed);
          if (gone) reject(new ClientGone('the client closed the connection'));
          else resolve();
        };
        const drained = settle(false);
        const closed = settle(true);
        res.on('drain', drained);
        res.on('close', closed);
      });
    },
  };
}

/**
 * Sends a body written by `write`. A failure before the first byte goes to the error handler (a proper
 * error response); after it, the connection is cut, so the client sees a broken transfer rather than a
 * file that looks whole.
 */
export async function sendStream(res: Response, write: (sink: Sink) => Promise<void>, contentType: string, log: Logger): Promise<void> {
  res.type(contentType);
  try {
    await write(responseSink(res));
  } catch (err) {
    if (!res.headersSent) throw err;
    if (!(err instanceof ClientGone)) log.error('streamed response failed part-way; connection cut', { err });
    res.destroy();
    return;
  }
  res.end();
}
