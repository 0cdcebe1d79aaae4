/** The feed's pure parts: how long it waits after a failed getUpdates. */
import { retryWait } from '../../../nodes/ServiceBotPollingTrigger/feed';

describe('the polling wait after a failed getUpdates (a pure function of the typed failure)', () => {
	it('a 429 waits what its retry_after asks, up to 5 minutes; without one, the first backoff step', () => {
		const tooMany = (retryAfterSeconds?: number) => ({ kind: 'refused', status: 429, description: 'Too Many Requests', retryAfterSeconds }) as const;
		expect(retryWait(tooMany(7), 1)).toBe(7000);
		expect(retryWait(tooMany(0), 3)).toBe(0);
		expect(retryWait(tooMany(3600), 1)).toBe(300_000);
		expect(retryWait(tooMany(), 1)).toBe(1000);
	});

	it('any other failure doubles from 1 s to at most 30 s', () => {
		const waits = [1, 2, 3, 5, 6, 7, 50].map((failures) => retryWait({ kind: 'serverError', status: 502 }, failures));
		expect(waits).toEqual([1000, 2000, 4000, 16_000, 30_000, 30_000, 30_000]);
		expect(retryWait({ kind: 'network', code: 'ECONNREFUSED', nothingSent: true }, 2)).toBe(2000);
		expect(retryWait(undefined, 1)).toBe(1000);
	});
});
