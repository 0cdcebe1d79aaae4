/**
 * The set-up the Polling Trigger's test files share (not a test file itself): one emulator for the
 * file, a log spy per test, n8n's poll waits shortened, every trigger a test started closed after it,
 * and no unhandled rejection left behind (it would crash n8n).
 */
import { POLL_TIMING } from '../../nodes/ServiceBotPollingTrigger/poll';
import type { Emulator } from '../emulator';
import type { RunningTrigger } from '../harness';
import { spyOnLogger, startTestEmulator, type LogSpy } from '../serviceBotTrigger/helpers';

/** Waits of tests are short; n8n's are not changed (see POLL_TIMING). */
const TEST_TIMING: Partial<Record<keyof typeof POLL_TIMING, number>> = { backoffStartMs: 20, backoffMaxMs: 100, idlePauseMs: 50, startGraceMs: 300 };

/**
 * Registers the file's hooks. `running`: the triggers to close after each test; `timing`: waits that
 * differ from the tests' usual ones; `started`/`logging` hand the emulator and each test's log spy over.
 */
export function usePollingSuite(options: {
	running: RunningTrigger[];
	started: (emu: Emulator) => void;
	logging?: (logs: LogSpy) => void;
	timing?: Partial<Record<keyof typeof POLL_TIMING, number>>;
}): void {
	let emu: Emulator | undefined;
	let logs: LogSpy | undefined;
	const unhandled: unknown[] = [];
	const onUnhandled = (reason: unknown): void => {
		unhandled.push(reason);
	};

	beforeAll(async () => {
		emu = await startTestEmulator();
		options.started(emu);
		process.on('unhandledRejection', onUnhandled);
	});

	beforeEach(() => {
		logs = spyOnLogger();
		options.logging?.(logs);
		for (const [name, value] of Object.entries({ ...TEST_TIMING, ...options.timing }) as Array<[keyof typeof POLL_TIMING, number]>) {
			jest.replaceProperty(POLL_TIMING, name, value);
		}
	});

	afterEach(async () => {
		for (const trigger of options.running.splice(0)) await trigger.close();
		logs?.restore();
		jest.restoreAllMocks();
		emu?.reset();
		expect(unhandled).toEqual([]);
	});

	afterAll(async () => {
		process.off('unhandledRejection', onUnhandled);
		await emu?.close();
	});
}
