/** Whose webhook the bot has: none, this trigger's (production or test), another trigger of this n8n, or foreign. */
import { listenersOf, receiverOf } from '../../../../nodes/shared/trigger/listeners';

describe('webhook URLs', () => {
	const own = 'https://n8n.example.com/webhook/0b7c5e0e-6c1f-4a59-9f87-3c1d2e4f5a6b/webhook';
	const webhookId = '0b7c5e0e-6c1f-4a59-9f87-3c1d2e4f5a6b';

	test('the trigger reads the bot\'s webhook: none, its own URL, its other (test) URL, another trigger of this n8n, or foreign', () => {
		const origin = 'https://n8n.example.com';
		const self = { run: 'production' as const, path: new URL(own).pathname };
		expect(listenersOf('', origin, self)).toEqual([]);
		expect(listenersOf(own, origin, self)).toEqual([self]);
		expect(listenersOf(`${own}/`, origin, self)).toEqual([self]);
		expect(listenersOf(own.replace('/webhook/', '/webhook-test/'), origin, self)).toEqual([{ run: 'test', path: self.path.replace('/webhook/', '/webhook-test/') }]);
		// Another trigger of this n8n is a listener of the bot; another host, another path: foreign.
		const other = own.replace(webhookId, '9a1e0000-0000-4000-8000-000000000000');
		expect(listenersOf(other, origin, self)).toEqual([{ run: 'production', path: new URL(other).pathname }]);
		expect(listenersOf(own.replace('n8n.example.com', 'other.example.com'), origin, self)).toBeUndefined();
		expect(listenersOf('https://n8n.example.com/hooks/bot', origin, self)).toBeUndefined();
		expect(listenersOf('not a url', origin, self)).toBeUndefined();
	});
});

describe('the receiver of a registered URL (what Send and Wait probes)', () => {
	const origin = 'https://n8n.example.com';
	const receiver = '/webhook/0b7c5e0e-6c1f-4a59-9f87-3c1d2e4f5a6b/webhook';
	const other = '/webhook/9a1e0000-0000-4000-8000-000000000000/webhook';

	test('a list names its receiver first, with its run; a plain URL or a list that does not start with the URL\'s own path names none', () => {
		const listed = `${origin}${receiver}?service-bot-listeners=p${receiver},p${other}`;
		expect(receiverOf(listed)).toEqual({ run: 'production', path: receiver });
		expect(receiverOf(`${origin}${receiver}?service-bot-listeners=t${receiver},p${other}`)).toEqual({ run: 'test', path: receiver });
		expect(receiverOf(`${origin}${receiver}`)).toBeUndefined();
		expect(receiverOf(`${origin}${receiver}?service-bot-listeners=p${other},p${receiver}`)).toBeUndefined();
		expect(receiverOf(`${origin}/hooks/bot?service-bot-listeners=p/hooks/bot`)).toBeUndefined();
		expect(receiverOf('not a url')).toBeUndefined();
		expect(receiverOf('')).toBeUndefined();
	});
});
