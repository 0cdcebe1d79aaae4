/**
 * The emulator's chat page (test/emulator/chat-page.ts) in headless Chromium, watched as a person
 * watches it: what it showed every 100 ms — the "… is typing…" line under the chat and each bot
 * message's id and text length — recorded inside the page, so that the record does not depend on how
 * fast this process asks. The person writes with the page's own box and Send button.
 */
import { join } from 'node:path';

import { launchBrowser, type Page } from './browser';
import type { ScenarioContext } from './context';

/** What the page showed at one moment: `at` ms after the watch began. */
export interface ChatPageSample {
	at: number;
	/** The typing line's text while it is visible ('' when hidden). */
	typing: string;
	/** The bot's messages shown, in order. */
	bots: Array<{ id: string; length: number }>;
}

export interface ChatPageWatch {
	page: Page;
	/** Types `text` into the page's box and clicks Send, as the chat's person. */
	write(text: string): Promise<void>;
	/** What the page showed since the watch began. */
	samples(): Promise<ChatPageSample[]>;
	/** The text of the bot's messages as the page shows them in `chatId` (switching the page to that chat). */
	botTexts(chatId: string): Promise<string[]>;
	screenshot(name: string): Promise<string>;
	/** The page's script errors so far (a scenario asserts there are none). */
	scriptErrors(): string[];
}

const SAMPLER = `(() => {
	const started = Date.now();
	window.__watch = [];
	setInterval(() => {
		const typing = document.getElementById('typing');
		const bots = [...document.querySelectorAll('.msg.bot')].map((box) => ({ id: box.dataset.messageId || '', length: (box.querySelector('.text') || { innerText: '' }).innerText.length }));
		window.__watch.push({ at: Date.now() - started, typing: typing && typing.style.visibility === 'visible' ? typing.textContent : '', bots });
	}, 100);
	return true;
})()`;

/** Opens the chat page of the emulator at `emulatorUrl` on the chat `chatId` and starts watching it. */
export async function watchChatPage(ctx: ScenarioContext, emulatorUrl: string, chatId: string): Promise<ChatPageWatch> {
	const browser = await launchBrowser(ctx.install);
	ctx.defer(() => browser.close());
	const { page } = browser;
	const errors: string[] = [];
	page.on('pageerror', (error) => errors.push(String(error.message)));
	await page.goto(`${emulatorUrl}/`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
	await page.locator(`#chat option[value="${chatId}"]`).waitFor({ state: 'attached', timeout: 30_000 });
	const select = (id: string): string => `(() => { const chat = document.getElementById('chat'); chat.value = ${JSON.stringify(id)}; chat.onchange(); return chat.value; })()`;
	await page.evaluate<string>(select(chatId));
	await page.evaluate<boolean>(SAMPLER);
	return {
		page,
		async write(text) {
			await page.locator('#text').fill(text, { timeout: 30_000 });
			await page.locator('#form button').click();
		},
		samples: async () => await page.evaluate<ChatPageSample[]>('window.__watch'),
		async botTexts(id) {
			await page.evaluate<string>(select(id));
			await page.locator('.msg.bot .text').first().waitFor({ state: 'visible', timeout: 30_000 });
			return await page.evaluate<string[]>(`[...document.querySelectorAll('.msg.bot .text')].map((text) => text.innerText)`);
		},
		scriptErrors: () => [...errors],
		async screenshot(name) {
			const path = join(ctx.screenshotDir, name);
			await page.screenshot({ path });
			return path;
		},
	};
}
