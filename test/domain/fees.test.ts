// Proves fees (percent of account_amount plus fixed, rounded once) and their split under both fee bearers.
import { customerPaysMinor, feeOf, splitFee } from '../../src/domain/fees';

describe('feeOf', () => {
  it.each([
    // [account amount minor, percent, fixed minor, fee minor]
    [100000n, '3', 0n, 3000n],
    [100000n, '3', 50n, 3050n],
    [100000n, '0', 0n, 0n],
    [50n, '1', 0n, 1n], // 0.005 -> 0.01
    [49n, '1', 0n, 0n], // 0.0049 -> 0.00
    [333n, '1.5', 0n, 5n], // 0.04995 -> 0.05
    [1n, '100', 0n, 1n],
    [100000000000000n, '2.75', 100n, 2750000000100n], // 10^12 major
    [1n, '0', 10000n, 10000n], // a fixed fee larger than the amount (capped by splitFee)
  ])('%p at %p%% + %p -> %p', (amount, percent, fixed, fee) => {
    expect(feeOf(amount, { percent, fixedMinor: fixed })).toBe(fee);
  });

  it('is zero without a fee rule for the payment method', () => {
    expect(feeOf(123456n, null)).toBe(0n);
  });
});

describe('splitFee', () => {
  it.each([
    // [bearer, account, fee, fee kept, total_credit, customer_charged]
    ['merchant', 100000n, 3050n, 3050n, 96950n, false],
    ['merchant', 100000n, 0n, 0n, 100000n, false],
    ['merchant', 100n, 100n, 100n, 0n, false],
    ['merchant', 1n, 10000n, 1n, 0n, false], // capped: the credit never goes negative
    ['customer', 100000n, 3050n, 3050n, 100000n, true],
    ['customer', 1n, 10000n, 10000n, 1n, true], // the customer pays it all: no cap
    ['customer', 100000n, 0n, 0n, 100000n, true],
  ] as const)('%s bears it: account %p fee %p -> fee %p credit %p charged %p', (bearer, account, fee, kept, credit, charged) => {
    expect(splitFee(account, fee, bearer)).toEqual({ feeMinor: kept, totalCreditMinor: credit, customerCharged: charged });
  });

  it('refuses negative amounts', () => {
    expect(() => splitFee(-1n, 0n, 'merchant')).toThrow(RangeError);
    expect(() => splitFee(1n, -1n, 'customer')).toThrow(RangeError);
  });
});

describe('customerPaysMinor', () => {
  it('adds the fee only when the customer is charged', () => {
    expect(customerPaysMinor(100000n, 3050n, true)).toBe(103050n);
    expect(customerPaysMinor(100000n, 3050n, false)).toBe(100000n);
  });
});
