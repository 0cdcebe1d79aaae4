/**
 * The set-up the node test files share (not a test file itself): one emulator for the file, started
 * before its first test, reset after each and closed after the last; the credential n8n would hand a
 * node for it; what nodes log captured per test; the polling trigger's waits shortened; what a test
 * started closed after it; and no unhandled rejection left behind (it would crash n8n).
 */
import { HookContext, TriggerContext, WebhookContext } from 'n8n-core';

import { POLL_TIMING } from '../../nodes/ServiceBotPollingTrigger/feed';
import { startEmulator, type DemoData, type Emulator, type EmulatorOptions, type RecordedCall } from '../emulator';
import type { TestCredentials } from './credentials-helper';

/** The emulator of the node tests: webhooks to loopback allowed (n8n runs there), redeliveries soon after a failure. */
const TEST_EMULATOR: EmulatorOptions = { allowLocalWebhooks: true, webhookRetryBaseMs: 5 };

export type PollWaits = Partial<Record<keyof typeof POLL_TIMING, number>>;

/** The polling trigger's waits for tests that run it much: short; n8n's are not changed (see POLL_TIMING). */
export const SHORT_POLL_WAITS: PollWaits = { backoffStartMs: 20, backoffMaxMs: 100, idlePauseMs: 50, startGraceMs: 300 };

/** What a test started: an object with `close()` (a trigger, a webhook server) or a function that stops it. */
export type Running = { close(): Promise<unknown> } | (() => Promise<unknown>);

export interface SuiteOptions {
	/** The emulator's options over the tests' usual ones. */
	emulator?: EmulatorOptions;
	/** Hands the emulator over once started (for files that keep it in a variable of their own). */
	started?: (emu: Emulator) => void;
	/** Captures (and silences) what nodes log, with a new spy for each test; a function gets the spy before the test. */
	logging?: true | ((logs: LogSpy) => void);
	/** What the tests start: stopped after each test, first of all, in the order started. */
	running?: Running[];
	/** The polling trigger's waits during each test (SHORT_POLL_WAITS, or what the file needs). */
	pollWaits?: PollWaits;
}

export interface Suite {
	/** The file's emulator (from `beforeAll` on). */
	emu: Emulator;
	/** Its demo bot, chats and users, for the running test. */
	d: DemoData;
}

/** Registers the file's hooks; the returned suite holds the emulator once the tests run. */
export function useEmulator(options: SuiteOptions = {}): Suite {
	const suite = {} as Suite;
	let logs: LogSpy | undefined;
	const replaced: Array<{ restore(): void }> = [];
	const unhandled: unknown[] = [];
	const onUnhandled = (reason: unknown): void => {
		unhandled.push(reason);
	};

	beforeAll(async () => {
		suite.emu = await startTestEmulator(options.emulator);
		options.started?.(suite.emu);
		process.on('unhandledRejection', onUnhandled);
	});

	beforeEach(() => {
		suite.d = suite.emu.demo;
		if (options.logging) {
			logs = spyOnLogger();
			if (options.logging !== true) options.logging(logs);
		}
		for (const [name, value] of Object.entries(options.pollWaits ?? {}) as Array<[keyof typeof POLL_TIMING, number]>) {
			replaced.push(jest.replaceProperty(POLL_TIMING, name, value));
		}
	});

	afterEach(async () => {
		for (const running of options.running?.splice(0) ?? []) await (typeof running === 'function' ? running() : running.close());
		logs?.restore();
		logs = undefined;
		for (const property of replaced.splice(0)) property.restore();
		suite.emu.reset();
		expect(unhandled.splice(0)).toEqual([]);
	});

	afterAll(async () => {
		process.off('unhandledRejection', onUnhandled);
		await suite.emu?.close();
	});

	return suite;
}

/** An emulator as the node tests start it, with these options over the usual ones (a second one for a test; close it). */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
	return await startEmulator({ ...TEST_EMULATOR, ...options });
}

/** The credential of a bot on the emulator (default its demo bot), as n8n hands it to a node. */
export function credentialsFor(emu: Emulator, token: string = emu.demo.token): TestCredentials {
	return { accessToken: token, baseUrl: emu.baseUrl };
}

export type LogLevel = 'error' | 'warn' | 'info' | 'debug';

export interface LogSpy {
	/** Messages logged at a level since the spy was installed. */
	messages(level: LogLevel): string[];
	restore(): void;
}

/**
 * Captures (and silences) what nodes log through `this.logger`. n8n-core resolves that getter from
 * its own DI container; the getter of the three context classes the triggers run in is replaced here.
 */
export function spyOnLogger(): LogSpy {
	const logged: Record<LogLevel, string[]> = { error: [], warn: [], info: [], debug: [] };
	const record =
		(level: LogLevel) =>
		(message: string): void => {
			logged[level].push(String(message));
		};
	const standIn = {
		error: record('error'),
		warn: record('warn'),
		info: record('info'),
		debug: record('debug'),
	} as unknown as HookContext['logger'];
	const spies = [
		jest.spyOn(HookContext.prototype, 'logger', 'get').mockReturnValue(standIn),
		jest.spyOn(WebhookContext.prototype, 'logger', 'get').mockReturnValue(standIn),
		jest.spyOn(TriggerContext.prototype, 'logger', 'get').mockReturnValue(standIn),
	];
	return {
		messages: (level) => [...logged[level]],
		restore: () => {
			for (const spy of spies) spy.mockRestore();
		},
	};
}

/**
 * Resolves once the polling trigger has fetched update `updateId` (a getUpdates answer carried it) and
 * asked again: by then every trigger polling the bot was offered it.
 */
export async function fetchedUpdate(emu: Emulator, updateId: number): Promise<void> {
	const carries = (call: RecordedCall): boolean => ((call.response as { result?: Array<{ update_id: number }> } | null)?.result ?? []).some((update) => update.update_id === updateId);
	for (;;) {
		const polls = emu.callsTo('getUpdates');
		const at = polls.findIndex(carries);
		if (at >= 0 && polls.length > at + 1) return;
		await new Promise((resolve) => setTimeout(resolve, 5));
	}
}
