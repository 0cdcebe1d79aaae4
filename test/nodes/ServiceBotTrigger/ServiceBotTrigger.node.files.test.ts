/**
 * Files users send, through the Service Bot Trigger (webhook delivery): the emulator pushes each
 * message to a real HTTP server in front of n8n-core's WebhookContext. A media message runs like any
 * message; its handy fields say what arrived; with Download Files the file is on the item as binary
 * data (n8n 2.x's filesystem store), and a download that fails never costs the message. The service
 * is answered before the file is downloaded. Expected values: Telegram's convention (test/spec.ts
 * FILES) and the README.
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import type { Emulator } from '../../emulator';
import { readBinary, useFileDownloads } from '../../harness';
import { SAMPLES, fileOfMessage, jpeg, serviceBytes, userSendsFile, type SampleFile } from '../../harness/sample-files';
import { FILES } from '../../spec';
import { SECRET_HEADER, api, liveTrigger, makeHarness, sendButton, type LiveTrigger } from '../../harness/trigger-nodes';
import { useEmulator, type LogSpy } from '../../harness/emulator-suite';

let emu: Emulator;
let logs: LogSpy;
const live: LiveTrigger[] = [];
useEmulator({ running: live, started: (started) => (emu = started), logging: (spy) => (logs = spy) });

useFileDownloads();

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
	for (let attempt = 0; attempt < 500; attempt++) {
		if (await condition()) return;
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	throw new Error(`timed out waiting for ${what}`);
}

/** A published trigger (version 2, a new node, unless given) with `options`. */
async function publish(options: INodeParameters = {}, extra: { typeVersion?: number; parameters?: INodeParameters } = {}): Promise<LiveTrigger> {
	const trigger = await liveTrigger(emu, { typeVersion: extra.typeVersion ?? 2, parameters: extra.parameters ?? { updates: ['*'], options } });
	live.push(trigger);
	return trigger;
}

/** The items of the executions the trigger started, each with its binary data. */
function runsOf(trigger: LiveTrigger): INodeExecutionData[] {
	return trigger.server.executions.map((outputs) => outputs.flat()[0]);
}

async function nextRun(trigger: LiveTrigger, count = 1): Promise<INodeExecutionData> {
	await until(() => trigger.server.executions.length >= count, `${count} execution(s)`);
	return runsOf(trigger)[count - 1];
}

async function bytesOf(item: INodeExecutionData, field = 'data'): Promise<Buffer> {
	const binary = item.binary?.[field];
	if (!binary) throw new Error(`the item has no binary field ${field}`);
	return await readBinary(binary);
}

/** What the handy fields must say of the file a message carries (its largest size for a photo). */
function handyFields(sample: SampleFile, file: IDataObject): IDataObject {
	return {
		file_kind: sample.kind,
		file_id: file.file_id,
		// A photo and a voice note carry no name, a photo no type (Telegram's messages).
		file_name: sample.fileName ?? null,
		mime_type: sample.mimeType ?? null,
		file_size: file.file_size,
	};
}

describe('a media message runs like any message; the handy fields say what arrived', () => {
	it.each(FILES.mediaFields)('a %s with a caption, Download Files off: file fields, the caption as text and chatInput, no file', async (kind) => {
		const trigger = await publish();
		const sample = SAMPLES[kind];
		const update = await userSendsFile(emu, sample, `About this ${kind}`);
		const item = await nextRun(trigger);
		expect(item.json).toMatchObject({
			update_type: 'message',
			...handyFields(sample, fileOfMessage(update)),
			text: `About this ${kind}`,
			chatInput: `About this ${kind}`,
		});
		expect(item.json.message).toEqual(update.message);
		expect(item.binary).toBeUndefined();
		expect(item.json).not.toHaveProperty('file_error');
		expect(emu.callsTo('getFile')).toEqual([]);
	});

	it('a text message has the file fields, each null', async () => {
		const trigger = await publish();
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'no file' });
		expect((await nextRun(trigger)).json).toMatchObject({ file_kind: null, file_id: null, file_name: null, mime_type: null, file_size: null });
	});

	it('version 1 with its options left off (a saved workflow): the update exactly as received, nothing downloaded', async () => {
		const trigger = await publish({}, { typeVersion: 1 });
		const update = await userSendsFile(emu, SAMPLES.photo, 'as before');
		const item = await nextRun(trigger);
		expect(item.json).toEqual(update);
		expect(item.binary).toBeUndefined();
	});

	it('Trigger On: with Callback Query only, a media message does not run and nothing is downloaded', async () => {
		const clicksOnly = await publish({}, { parameters: { updates: ['callback_query'], options: { downloadFiles: true } } });
		await userSendsFile(emu, SAMPLES.document);
		const messageId = await sendButton(emu, emu.demo.privateChatId, 'ok');
		await emu.userClicks({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, messageId, data: 'ok' });
		await nextRun(clicksOnly);
		expect(runsOf(clicksOnly).map((item) => item.json.update_type)).toEqual(['callback_query']);
		expect(emu.callsTo('getFile')).toEqual([]);
	});

	it('Restrict to User IDs and Separate Outputs by Kind: a photo is a message, a file captioned /start a command, each with its file', async () => {
		const separate = await publish({ separateOutputs: true, userIds: emu.demo.userId, downloadFiles: true });
		await userSendsFile(emu, SAMPLES.voice, '/start');
		await userSendsFile(emu, SAMPLES.photo);
		await until(() => separate.server.executions.length === 2, 'two executions');
		// A caption starting with / is a command; the photo a message; each with its file. (The two
		// pushes run side by side: which execution started first is not the point.)
		const shapes = separate.server.executions.map((outputs) => outputs.map((output) => output.length));
		expect(shapes).toEqual(expect.arrayContaining([[0, 1, 0], [1, 0, 0]]));
		const command = separate.server.executions.find((outputs) => outputs[1].length === 1)!;
		const photo = separate.server.executions.find((outputs) => outputs[0].length === 1)!;
		expect((await bytesOf(command[1][0])).equals(SAMPLES.voice.bytes)).toBe(true);
		expect((await bytesOf(photo[0][0])).equals(SAMPLES.photo.bytes)).toBe(true);
	});
});

describe('Download Files: the file on the item as binary data', () => {
	it.each(FILES.mediaFields)('a %s: in "data" byte for byte, with the name and MIME type the message gives; file_error null', async (kind) => {
		const trigger = await publish({ downloadFiles: true });
		const sample = SAMPLES[kind];
		const update = await userSendsFile(emu, sample);
		const file = fileOfMessage(update);
		const item = await nextRun(trigger);
		expect(item.json).toMatchObject({ ...handyFields(sample, file), file_error: null });
		expect((await bytesOf(item)).equals(sample.bytes)).toBe(true);
		const binary = item.binary!.data;
		expect(binary.mimeType).toBe(sample.expectedMimeType);
		// The sender's name; a photo or voice note has none: its kind and unique ID, with the extension of its path.
		expect(binary.fileName).toBe(sample.fileName ?? `${kind}_${String(file.file_unique_id)}.${sample.pathExtension}`);
		expect(binary.directory).toBeUndefined();
	});

	it.each([
		['smallest', 0],
		// The middle one of the service's four sizes (Telegram's 90, 320 and 800 px, and the photo): of an even number, the smaller.
		['medium', 1],
		['largest', 3],
	] as const)('Photo Size %s: the file fields and the file are that size', async (photoSize, index) => {
		const trigger = await publish({ downloadFiles: true, photoSize });
		const update = await userSendsFile(emu, SAMPLES.photo);
		const sizes = (update.message as IDataObject).photo as IDataObject[];
		expect(sizes).toHaveLength(4);
		const item = await nextRun(trigger);
		expect(item.json).toMatchObject({ file_id: sizes[index].file_id, file_size: sizes[index].file_size });
		expect((await bytesOf(item)).equals(await serviceBytes(emu, String(sizes[index].file_id)))).toBe(true);
	});

	it('a file of exactly 20 MB arrives whole; one just over runs all the same, file_error naming it by its file_name, the limit and its size', async () => {
		const trigger = await publish({ downloadFiles: true });
		const limit = FILES.downloadBytes.max;
		const whole = Buffer.alloc(limit, 0x33);
		await userSendsFile(emu, { ...SAMPLES.document, bytes: whole, fileName: 'scan.pdf' });
		const first = await nextRun(trigger);
		expect(first.json.file_error).toBeNull();
		expect((await bytesOf(first)).equals(whole)).toBe(true);

		const over = await userSendsFile(emu, { ...SAMPLES.document, bytes: Buffer.alloc(limit + 1, 0x34), fileName: 'too-big.pdf' }, 'my scan');
		const second = await nextRun(trigger, 2);
		const file = fileOfMessage(over);
		expect(second.binary).toBeUndefined();
		expect(second.json).toMatchObject({ file_id: file.file_id, file_name: 'too-big.pdf', file_size: limit + 1, text: 'my scan', chatInput: 'my scan' });
		expect(second.json.file_error).toBe(
			// Named as the sender named it (the item has file_name), not by its ID.
			"File 'too-big.pdf' is over the service's 20 MB download limit for bots (the file is 20.0 MB): it was not downloaded; its file_id and metadata are on the item",
		);
		// Known from the message: the service is not even asked.
		expect(emu.callsTo('getFile')).toHaveLength(1);
	});

	it('a download answered 500, then the file: asked again, the file arrives', async () => {
		const trigger = await publish({ downloadFiles: true });
		emu.injectFault({ kind: 'status', status: 500, method: 'file', count: 1 });
		await userSendsFile(emu, SAMPLES.photo);
		const item = await nextRun(trigger);
		expect((await bytesOf(item)).equals(SAMPLES.photo.bytes)).toBe(true);
		expect(item.json.file_error).toBeNull();
		expect(emu.callsTo('file')).toHaveLength(2);
	});

	it('a download that keeps failing: the message runs without the file, file_error says why and what to do', async () => {
		const trigger = await publish({ downloadFiles: true });
		emu.injectFault({ kind: 'status', status: 503, method: 'file', count: 100 });
		const update = await userSendsFile(emu, SAMPLES.voice, 'listen');
		const item = await nextRun(trigger);
		const file = fileOfMessage(update);
		expect(item.binary).toBeUndefined();
		expect(item.json).toMatchObject({ file_id: file.file_id, chatInput: 'listen' });
		expect(item.json.file_error).toBe(
			`Could not download file '${String(file.file_id)}': the service answered HTTP 503, also when asked again. The message ran without it: its file_id is on the item, to fetch it later with Service Bot → File → Get File`,
		);
		expect(logs.messages('warn').some((line) => line.includes(String(item.json.file_error)))).toBe(true);
		// The read retries of every read: 1 + 3 attempts; then the next message runs as usual.
		expect(emu.callsTo('file')).toHaveLength(4);
		emu.clearFaults();
		await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text: 'after' });
		expect((await nextRun(trigger, 2)).json.text).toBe('after');
	});

	it('a file the service no longer serves (getFile refused): the message runs, file_error names the file', async () => {
		const trigger = await publish({ downloadFiles: true });
		emu.injectFault({ kind: 'status', status: 400, description: 'Bad Request: invalid file_id', method: 'getFile', count: 1 });
		const update = await userSendsFile(emu, SAMPLES.document);
		const item = await nextRun(trigger);
		expect(item.json.file_error).toContain(`The service does not know file ID '${String(fileOfMessage(update).file_id)}' (Bad Request: invalid file_id)`);
		expect(item.binary).toBeUndefined();
	});
});

describe('Confirm Delivery "When the Run Ends": the file is downloaded before the run, and the service answered after it', () => {
	it('a slow download: the push is answered once the run with the file has ended', async () => {
		const trigger = await publish({ downloadFiles: true, confirmDelivery: 'afterRun' });
		emu.injectFault({ kind: 'delay', delayMs: 1500, method: 'file', count: 1 });
		await userSendsFile(emu, SAMPLES.document);
		await until(async () => emu.callsTo('file').length === 1, 'the download to start');
		// The file still comes: nothing ran, and the service still holds the update.
		expect(emu.callsTo('file')[0].status).toBe(0);
		expect((await api<{ pending_update_count: number }>(emu, 'getWebhookInfo')).result?.pending_update_count).toBe(1);
		const item = await nextRun(trigger);
		expect((await bytesOf(item)).equals(SAMPLES.document.bytes)).toBe(true);
		await until(async () => (await api<{ pending_update_count: number }>(emu, 'getWebhookInfo')).result?.pending_update_count === 0, 'the push to be answered');
		expect(trigger.server.receipts[0]).toMatchObject({ status: 200 });
	});
});

describe('Confirm Delivery "When the Run Starts" (the default): the service is answered before the file is downloaded', () => {
	it('a slow download: the push is answered (delivered) while the file still comes; the execution starts once it is on the item', async () => {
		const trigger = await publish({ downloadFiles: true, confirmDelivery: 'whenStarted' });
		emu.injectFault({ kind: 'delay', delayMs: 1500, method: 'file', count: 1 });
		await userSendsFile(emu, SAMPLES.document);
		await until(async () => emu.callsTo('file').length === 1, 'the download to start');
		await until(async () => (await api<{ pending_update_count: number }>(emu, 'getWebhookInfo')).result?.pending_update_count === 0, 'the push to be answered');
		// Answered, and the file not yet served: the execution waits for it.
		expect(emu.callsTo('file')[0].status).toBe(0);
		expect(trigger.server.executions).toHaveLength(0);
		expect(trigger.server.receipts).toHaveLength(0);
		const item = await nextRun(trigger);
		expect((await bytesOf(item)).equals(SAMPLES.document.bytes)).toBe(true);
		expect(trigger.server.receipts[0]).toMatchObject({ status: 200, responseBody: { message: 'Workflow was started' } });
	});

	it('a message without a file, or with Download Files off, is answered as before: once webhook() returned', async () => {
		const harness = await makeHarness(emu, { typeVersion: 2, parameters: { updates: ['*'], options: { downloadFiles: true, confirmDelivery: 'whenStarted' } } });
		await harness.activate();
		const secret = emu.webhookOf()?.secretToken ?? '';
		let answered = false;
		const body = { update_id: 1, message: { message_id: 1, date: 1, chat: { id: emu.demo.privateChatId, type: 'private' }, from: { id: emu.demo.userId, is_bot: false, first_name: 'D' }, text: 'hi' } };
		const receipt = await harness.receive({ headers: { [SECRET_HEADER]: secret }, body, onAnswer: () => (answered = true) });
		expect(answered).toBe(false);
		expect(receipt).toMatchObject({ status: 200, responseBody: { message: 'Workflow was started' } });
		await harness.delete();
	});

	it('a test delivery (listen for test event) gets the file too', async () => {
		const harness = await makeHarness(emu, { typeVersion: 2, parameters: { updates: ['*'], options: { downloadFiles: true } } });
		await harness.activate('manual');
		const secret = emu.webhookOf()?.secretToken ?? '';
		const update = await userSendsFile(emu, { ...SAMPLES.photo, bytes: jpeg(64, 48, 1) });
		const receipt = await harness.receive({ mode: 'manual', headers: { [SECRET_HEADER]: secret }, body: update });
		expect(receipt.status).toBe(200);
		const [item] = receipt.workflowData?.[0] ?? [];
		expect((await bytesOf(item)).equals(jpeg(64, 48, 1))).toBe(true);
		await harness.delete('manual');
	});
});
