/**
 * Headless Chromium (Debian's /usr/bin/chromium) driven by the playwright-core that provision.sh
 * installs next to n8n. Only the few calls the e2e needs are typed here, so the test code type-checks
 * without playwright in the repository's node_modules.
 */
import { existsSync } from 'node:fs';

import type { N8nInstall } from '../../real-n8n/install';
import { DEMO_OWNER } from '../../real-n8n/n8n';
import { waitFor } from '../../real-n8n/processes';

export interface Locator {
	first(): Locator;
	nth(index: number): Locator;
	filter(options: { hasText?: string | RegExp }): Locator;
	locator(selector: string): Locator;
	waitFor(options?: { state?: 'attached' | 'detached' | 'visible' | 'hidden'; timeout?: number }): Promise<void>;
	click(options?: { timeout?: number }): Promise<void>;
	dblclick(options?: { timeout?: number }): Promise<void>;
	fill(value: string, options?: { timeout?: number }): Promise<void>;
	innerText(options?: { timeout?: number }): Promise<string>;
	getAttribute(name: string, options?: { timeout?: number }): Promise<string | null>;
	/** A file input's files, as a person picks them. */
	setInputFiles(files: { name: string; mimeType: string; buffer: Buffer }, options?: { timeout?: number }): Promise<void>;
	count(): Promise<number>;
	scrollIntoViewIfNeeded(options?: { timeout?: number }): Promise<void>;
	screenshot(options: { path: string; timeout?: number }): Promise<unknown>;
	/** Runs `fn` in the page on the matched elements (here: form fields, whose values are not text). */
	evaluateAll<R>(fn: (elements: Array<{ value?: string }>) => R): Promise<R>;
}

export interface Page {
	goto(url: string, options?: { waitUntil?: 'load' | 'domcontentloaded' | 'networkidle'; timeout?: number }): Promise<unknown>;
	locator(selector: string): Locator;
	getByText(text: string | RegExp, options?: { exact?: boolean }): Locator;
	waitForURL(url: string | RegExp | ((url: URL) => boolean), options?: { timeout?: number }): Promise<void>;
	screenshot(options: { path: string; fullPage?: boolean; timeout?: number }): Promise<unknown>;
	keyboard: { press(key: string): Promise<void> };
	/** Runs a script in the page (a string: the test code has no DOM types) and returns its value. */
	evaluate<R>(expression: string): Promise<R>;
	url(): string;
	on(event: 'console' | 'pageerror', listener: (arg: { text?: () => string; message?: string }) => void): void;
}

interface BrowserContext {
	newPage(): Promise<Page>;
	close(): Promise<void>;
}

interface Browser {
	newContext(options?: { viewport?: { width: number; height: number }; deviceScaleFactor?: number }): Promise<BrowserContext>;
	close(): Promise<void>;
}

interface Playwright {
	chromium: {
		launch(options: { executablePath: string; headless: boolean; args: string[]; timeout?: number }): Promise<Browser>;
	};
}

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface HeadlessBrowser {
	page: Page;
	close(): Promise<void>;
}

/** Launches headless Chromium (playwright gives it a fresh temporary profile and removes it on close). */
export async function launchBrowser(install: N8nInstall): Promise<HeadlessBrowser> {
	if (!existsSync(CHROMIUM)) {
		throw new Error(`${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH`);
	}
	// eslint-disable-next-line @typescript-eslint/no-require-imports
	const playwright = require(install.playwrightCore) as Playwright;
	const browser = await playwright.chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		timeout: 120_000,
		args: [
			'--no-sandbox',
			'--disable-gpu',
			'--disable-dev-shm-usage',
			'--disable-quic',
			'--no-first-run',
			'--disable-background-networking',
			'--disable-component-update',
			'--disable-sync',
			'--disable-breakpad',
			'--disable-crash-reporter',
		],
	});
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	const page = await context.newPage();
	return {
		page,
		close: async () => {
			await context.close().catch(() => undefined);
			await browser.close().catch(() => undefined);
		},
	};
}

/**
 * Waits until the editor's "Loading" overlay is gone: the canvas's nodes exist under it a moment before,
 * and a screenshot taken then shows the overlay over a faded workflow.
 */
export async function untilLoaded(page: Page): Promise<void> {
	const overlay = page.locator('text="Loading" >> visible=true');
	const nodes = page.locator('[data-test-id="canvas-node"]');
	// Then the canvas fades in: each node's opacity, times its ancestors', reaches 1.
	const opaque = (elements: unknown[]): boolean =>
		elements.every((element) => {
			const view = globalThis as unknown as { getComputedStyle(node: unknown): { opacity: string } };
			let opacity = 1;
			for (let node = element as { parentElement: unknown } | null; node; node = node.parentElement as { parentElement: unknown } | null) {
				opacity *= Number(view.getComputedStyle(node).opacity);
			}
			return opacity === 1;
		});
	await waitFor('the editor to finish loading', async () => (await overlay.count()) === 0 && (await nodes.evaluateAll(opaque as (elements: Array<{ value?: string }>) => boolean)), {
		limitMs: 60_000,
	});
}

/** Signs in to n8n's editor as the demo owner. */
export async function signIn(page: Page, baseUrl: string): Promise<void> {
	await page.goto(`${baseUrl}/signin`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
	await page.locator('input[name="emailOrLdapLoginId"], input[type="email"]').first().fill(DEMO_OWNER.email, { timeout: 60_000 });
	await page.locator('input[name="password"]').first().fill(DEMO_OWNER.password);
	await page.locator('[data-test-id="form-submit-button"], button[type="submit"]').first().click();
	await page.waitForURL((url) => !url.pathname.startsWith('/signin'), { timeout: 60_000 });
}

/**
 * Opens a node's parameter panel on the canvas and waits until it shows every entry of `expected`,
 * each either as text (labels) or as the value of a field (selected options, typed values).
 */
export async function openNode(page: Page, nodeName: string, expected: string[], failShot: string): Promise<string> {
	const node = page.locator('[data-test-id="canvas-node"]').filter({ hasText: nodeName }).first();
	await node.waitFor({ state: 'visible', timeout: 60_000 });
	await node.dblclick();
	const panel = page.locator('[data-test-id="node-parameters"]').first();
	await panel.waitFor({ state: 'visible', timeout: 30_000 });
	let shown = '';
	try {
		await waitFor(
			`the ${nodeName} panel to show ${expected.join(', ')}`,
			async () => {
				const text = await panel.innerText();
				const values = await panel.locator('input, textarea').evaluateAll((fields) => fields.map((field) => field.value ?? ''));
				shown = `${text}\n${values.filter((value) => value !== '').join('\n')}`;
				const lines = shown.split('\n').map((line) => line.trim());
				return expected.every((entry) => lines.includes(entry) || shown.includes(entry));
			},
			{ limitMs: 30_000 },
		);
	} catch (error) {
		await page.screenshot({ path: failShot }).catch(() => undefined);
		const missing = expected.filter((entry) => !shown.includes(entry));
		throw new Error(`${error instanceof Error ? error.message : String(error)}; missing ${missing.join(', ')}; screenshot ${failShot}; it shows:\n${shown}`);
	}
	return shown;
}
