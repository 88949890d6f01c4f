import { describe, expect, it } from 'vitest';
import type { Usage } from './types';
import { contextFraction, contextLine, footerParts, usageParts } from './usage';

describe('usage', () => {
  it('says tokens, context and cost as reported', () => {
    expect(usageParts({ sessionUpdate: 'usage_update', used: 1234, size: 200000, cost: { amount: 0.0123, currency: 'USD' } })).toEqual([
      'context 1,234 / 200K (1%)',
      '$0.0123',
    ]);
    expect(usageParts({ inputTokens: 12_500, outputTokens: 830 })).toEqual(['12.5K tokens in, 830 out']);
    expect(usageParts({ totalTokens: 99 })).toEqual(['99 tokens']);
    expect(usageParts({ inputTokens: 12_500, outputTokens: 830, cachedReadTokens: 9000, cachedWriteTokens: 500 })).toEqual([
      '12.5K tokens in, 830 out, 9,500 cached',
    ]);
    expect(usageParts({ cost: { amount: 3.5, currency: 'EUR' } })).toEqual(['€3.50']);
    expect(usageParts({ used: 'lots' } as unknown as Usage)).toEqual([]);
    expect(usageParts(undefined)).toEqual([]);
  });

  it("puts a turn's tokens beside the cost the ledger gives it", () => {
    expect(footerParts({ inputTokens: 4000, outputTokens: 1000, cachedReadTokens: 0 }, '0.12 USD')).toEqual([
      '4,000 tokens in, 1,000 out',
      'cost 0.12 USD',
    ]);
    expect(footerParts(undefined, '')).toEqual([]);
  });

  it('gives the context fill when size and used are known', () => {
    expect(contextFraction({ used: 50, size: 200 })).toBe(0.25);
    expect(contextFraction({ used: 50 })).toBeUndefined();
    expect(contextLine({ used: 50 })).toBe('context 50 tokens');
  });
});
