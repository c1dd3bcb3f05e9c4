// `npm run fakes` starts every fake processor on real sockets: each answers its vendor's token request with the credentials it prints.
import { startFakes } from './run';

it('starts the four fakes and stops them', async () => {
  const fakes = await startFakes({ paystack: 0, btcpay: 0, mtn: 0, mpesa: 0 }, 10);
  try {
    const mtn = fakes.mtn.credentials();
    const token = await fetch(`${fakes.mtn.url}/collection/token/`, {
      method: 'POST',
      headers: { authorization: 'Basic ' + Buffer.from(`${mtn.api_user}:${mtn.api_key}`).toString('base64'), 'ocp-apim-subscription-key': mtn.subscription_key },
    });
    expect(token.status).toBe(200);
    const mp = fakes.mpesa.credentials();
    const daraja = await fetch(`${fakes.mpesa.url}/oauth/v1/generate?grant_type=client_credentials`, {
      headers: { authorization: 'Basic ' + Buffer.from(`${mp.consumer_key}:${mp.consumer_secret}`).toString('base64') },
    });
    expect(await daraja.json()).toMatchObject({ access_token: expect.any(String), expires_in: '3599' });
    expect(fakes.paystack.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(fakes.btcpay.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  } finally {
    await fakes.stop();
  }
});
