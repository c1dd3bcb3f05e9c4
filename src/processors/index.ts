// The processors this deployment has, by service type (a MID's `service_type`). A new connector is
// one folder under src/processors/ and one line here.
import type { Config } from '../config';
import { btcpayProcessor } from './btcpay';
import { mpesaProcessor } from './mpesa';
import { mtnMomoProcessor } from './mtn-momo';
import { paystackProcessor } from './paystack';
import { sandboxProcessor } from './sandbox';
import type { Processor } from './types';

export class Processors {
  private readonly byType: Map<string, Processor>;

  constructor(list: Processor[]) {
    this.byType = new Map(list.map((p) => [p.serviceType, p]));
  }

  get(serviceType: string): Processor {
    const p = this.byType.get(serviceType);
    if (!p) throw new Error(`no processor for service type ${serviceType}`);
    return p;
  }

  has(serviceType: string): boolean {
    return this.byType.has(serviceType);
  }

  serviceTypes(): string[] {
    return [...this.byType.keys()];
  }
}

export function buildProcessors(c: Config): Processors {
  const p = c.processors;
  const transport = (baseUrl: string) => ({ baseUrl, timeoutMs: p.timeoutMs, tokenMarginMs: p.tokenMarginSeconds * 1000 });
  return new Processors([
    sandboxProcessor({ mmSuccess: c.sandboxMmSuccess, mmFailure: c.sandboxMmFailure, mmDelayMs: c.sandboxMmDelayMs }),
    mtnMomoProcessor(transport(p.baseUrls.mtn_momo)),
    mpesaProcessor(transport(p.baseUrls.mpesa)),
    paystackProcessor({ baseUrl: p.baseUrls.paystack, timeoutMs: p.timeoutMs }),
    // BTCPay is self-hosted: each MID names its own server
    btcpayProcessor({ timeoutMs: p.timeoutMs }),
  ]);
}
