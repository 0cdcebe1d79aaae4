/**
 * The emulator's chat page (test/emulator/chat-page.ts) in headless Chromium, with the echo bot of
 * `npm run dev` published in real n8n: what a person does on the page reaches the bot, and what the
 * bot does shows on the page.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';

import type { WORKFLOWS } from '../dev/demo';
import { jpeg } from '../harness/sample-files';
import { launchBrowser, signIn, untilLoaded } from './lib/browser';
import type { ScenarioContext } from './lib/context';
import type { EmulatorProcess, StoredMessage } from '../real-n8n/emulator-process';
import type { N8n } from '../real-n8n/n8n';
import { waitFor } from '../real-n8n/processes';
import type { Scenario } from './lib/runner';

/** An emulator and a fresh n8n with the demo content, one example workflow published (its webhook registered). */
async function withPublished(ctx: ScenarioContext, workflow: keyof typeof WORKFLOWS): Promise<{ emulator: EmulatorProcess; n8n: N8n; id: string }> {
	const emulator = await ctx.emulator();
	const n8n = await ctx.n8n();
	await n8n.start();
	await n8n.setupOwner();
	const id = (await ctx.createDemo(n8n, emulator)).workflowIds[workflow];
	await n8n.activate(id);
	await waitFor(`"${workflow}" to register its webhook`, async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });
	return { emulator, n8n, id };
}

const chatPage: Scenario = {
	name: "the emulator's chat page in Chromium: a message typed there reaches the published echo bot, its answer shows with buttons, a tap shows the bot's callback answer as a toast and the message as edited, and a photo attached there reaches the bot as a photo",
	async run(ctx: ScenarioContext) {
		const { emulator } = await withPublished(ctx, 'demoBot');

		const browser = await launchBrowser(ctx.install);
		ctx.defer(() => browser.close());
		const { page } = browser;
		const errors: string[] = [];
		page.on('pageerror', (error) => errors.push(String(error.message)));
		await page.goto(`${emulator.baseUrl}/`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
		await page.locator('#text').fill('hello from the page', { timeout: 30_000 });
		await page.locator('#form button').click();

		const echo = page.locator('.msg.bot').filter({ hasText: 'You said: hello from the page' }).first();
		await echo.waitFor({ state: 'visible', timeout: 60_000 });
		const history = await emulator.history();
		assert.deepEqual(
			history.map((message) => [message.from?.is_bot === true, message.text]),
			[
				[false, 'hello from the page'],
				[true, 'You said: hello from the page'],
			],
			'the page wrote as the demo user in the private chat, and the bot answered there',
		);
		await page.screenshot({ path: join(ctx.screenshotDir, 'chat-page-echo.png') });
		ctx.log('typed on the page: the message reached the bot through the service; its echo shows with 👍 Nice and 👎 Meh');

		await echo.locator('button').filter({ hasText: '👍 Nice' }).first().click();
		const toast = page.locator('#toast');
		await waitFor('the toast', async () => ((await toast.innerText()).trim() === 'You chose nice' ? true : undefined), { limitMs: 60_000 });
		const edited = page.locator('.msg.bot').filter({ hasText: 'You chose: nice' }).first();
		await edited.waitFor({ state: 'visible', timeout: 60_000 });
		assert.match(await edited.locator('.meta').innerText(), /edited/);
		assert.equal(await edited.locator('button').count(), 0, 'the edit removed the keyboard');
		await page.screenshot({ path: join(ctx.screenshotDir, 'chat-page-tapped.png') });
		ctx.log('tapped 👍 Nice on the page: the toast says "You chose nice", the message shows the choice, edited, without buttons');

		// Attach: a photo with the text as its caption, as a person sends one from the page.
		const photo = jpeg(320, 240, 5, 3000);
		const before = (await emulator.history()).length;
		await page.locator('#file').setInputFiles({ name: 'my-cat.jpg', mimeType: 'image/jpeg', buffer: photo }, { timeout: 30_000 });
		await page.locator('#text').fill('my cat', { timeout: 30_000 });
		await page.locator('#form button').click();
		const sent = await waitFor('the photo in the chat', async () => (await emulator.history()).slice(before).find((message) => message.from?.is_bot !== true), { limitMs: 60_000 });
		const sizes = (sent as StoredMessage & { photo?: Array<{ file_size?: number }> }).photo ?? [];
		assert.ok(sizes.length > 0, `the page sent a photo: ${JSON.stringify(sent)}`);
		assert.equal(sizes.at(-1)?.file_size, photo.length, 'the largest size is the photo itself');
		assert.equal((sent as StoredMessage & { caption?: string }).caption, 'my cat', 'the text is its caption');
		await page.locator('.msg.user img').first().waitFor({ state: 'visible', timeout: 60_000 });
		await waitFor('the bot to answer the photo', async () => ((await emulator.history()).slice(before).some((message) => message.from?.is_bot === true) ? true : undefined), { limitMs: 60_000 });
		await page.screenshot({ path: join(ctx.screenshotDir, 'chat-page-photo.png') });
		assert.deepEqual(errors, [], 'no script errors on the page');
		ctx.log(`attached a ${photo.length}-byte JPEG with the caption "my cat" on the page: the chat shows it as an image, the service holds it as a photo with its sizes, the echo bot ran for it`);
	},
};

const firstBot: Scenario = {
	name: "the README's first bot (the starter workflow of npm run dev) in real n8n: a message gets a keyboard, /start a welcome, a tap its toast and the clicked message edited, a document is described, with no Switch, no If and no trigger named",
	async run(ctx: ScenarioContext) {
		const { emulator, n8n, id } = await withPublished(ctx, 'firstBot');
		const bot = async (): Promise<StoredMessage[]> => (await emulator.history()).filter((message) => message.from?.is_bot === true);

		await emulator.userSends('hi');
		const offer = await waitFor('the keyboard', async () => (await bot()).find((message) => message.text === 'Hello Demo! Tea or coffee?'), { limitMs: 60_000 });
		assert.deepEqual(offer.reply_markup?.inline_keyboard?.flat().map((button) => button.text), ['🍵 Tea', '☕ Coffee']);
		await emulator.userSends('/start');
		await waitFor('the welcome', async () => (await bot()).find((message) => message.text === 'Welcome! Write me anything and I will offer you a drink.'), { limitMs: 60_000 });
		await emulator.userClicks(offer.message_id, 'tea');
		const edited = await waitFor('the edit', async () => (await bot()).find((message) => message.message_id === offer.message_id && message.text === 'Thanks, your order is in. ✔'), { limitMs: 60_000 });
		assert.equal(edited.reply_markup, undefined, 'the keyboard is gone');
		assert.deepEqual((await emulator.callbackAnswers()).map((answer) => answer.text), ['One tea coming up']);
		ctx.log('a message → "Hello Demo! Tea or coffee?" with 🍵 Tea / ☕ Coffee; /start → the welcome; 🍵 Tea → toast "One tea coming up", the offer edited, keyboard gone');
		const report = Buffer.from('Quarterly figures: 42 cups of tea, 17 of coffee.\n');
		await emulator.userSendsFile('document', report, { fileName: 'report.txt', mimeType: 'text/plain' });
		const described = `Got your document report.txt, ${report.length} bytes. It is on the item as a file, for the next node.`;
		await waitFor('the file described', async () => (await bot()).find((message) => message.text === described), { limitMs: 60_000 });
		ctx.log(`a document → "${described}"`);

		const browser = await launchBrowser(ctx.install);
		ctx.defer(() => browser.close());
		const { page } = browser;
		await signIn(page, n8n.baseUrl);
		await page.goto(`${n8n.baseUrl}/workflow/${id}`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
		const nodes = page.locator('[data-test-id="canvas-node"]');
		await waitFor('the six nodes of the starter on the canvas', async () => ((await nodes.count()) === 6 ? true : undefined), { limitMs: 60_000 });
		// The screenshot is for the README: once the canvas has faded in.
		await untilLoaded(page);
		// n8n's "Production Checklist" opens over a published workflow's canvas.
		const checklist = page.getByText('Production Checklist');
		if ((await checklist.count()) > 0) {
			await page.keyboard.press('Escape');
			await checklist.first().waitFor({ state: 'hidden', timeout: 5000 }).catch(() => undefined);
		}
		const shot = join(ctx.screenshotDir, 'first-bot-workflow.png');
		await page.screenshot({ path: shot });
		ctx.log(`the starter on the canvas: the trigger's four outputs lead to their own nodes → ${shot}`);
	},
};

export const CHAT_SCENARIOS: Scenario[] = [chatPage, firstBot];
