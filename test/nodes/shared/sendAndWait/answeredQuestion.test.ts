/**
 * The claim an answer takes on its question in one n8n process (n8n 1.x resumes every answer that
 * reaches the node while the execution waits; the claim keeps that to one).
 */
import { claimQuestion, rememberDecision } from '../../../../nodes/shared/sendAndWait/answeredQuestion';

describe('claimQuestion', () => {
	afterEach(() => jest.restoreAllMocks());

	it('the first answer claims the question; another is told its decision; unaccepted, the claim lapses after 5 s; accepted, it stays', () => {
		let now = 1_000_000;
		jest.spyOn(Date, 'now').mockImplementation(() => now);
		expect(claimQuestion('exec-1', 7, '✅ Approve — Anna')).toBeUndefined();
		expect(claimQuestion('exec-1', 7, '❌ Decline — Ben')).toBe('✅ Approve — Anna');
		// Another question of the same execution (a loop that asks again) is free.
		expect(claimQuestion('exec-1', 8, '❌ Decline — Ben')).toBeUndefined();

		now += 4_999;
		expect(claimQuestion('exec-1', 7, '❌ Decline — Ben')).toBe('✅ Approve — Anna');
		// n8n never accepted Anna's answer (its resume failed): 5 s on, Ben's answer may resume.
		now += 2;
		expect(claimQuestion('exec-1', 7, '❌ Decline — Ben')).toBeUndefined();
		rememberDecision('exec-1', 7, '❌ Decline — Ben');
		now += 3_600_000;
		expect(claimQuestion('exec-1', 7, '✅ Approve — Anna')).toBe('❌ Decline — Ben');
	});
});
