/**
 * The emulator's chat page (test/emulator/chat-page.ts) in headless Chromium, with the echo bot of
 * `npm run dev` published in real n8n: what a person does on the page reaches the bot, and what the
 * bot does shows on the page.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';

import { launchBrowser } from './lib/browser';
import type { ScenarioContext } from './lib/context';
import { waitFor } from './lib/processes';
import type { Scenario } from './lib/runner';

const chatPage: Scenario = {
	name: "the emulator's chat page in Chromium: a message typed there reaches the published echo bot, its answer shows with buttons, a tap shows the bot's callback answer as a toast and the message as edited",
	async run(ctx: ScenarioContext) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await n8n.start();
		await n8n.setupOwner();
		const id = (await ctx.createDemo(n8n, emulator)).workflowIds.demoBot;
		await n8n.activate(id);
		await waitFor('the echo bot to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });

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
		assert.deepEqual(errors, [], 'no script errors on the page');
		ctx.log('tapped 👍 Nice on the page: the toast says "You chose nice", the message shows the choice, edited, without buttons');
	},
};

export const CHAT_SCENARIOS: Scenario[] = [chatPage];
