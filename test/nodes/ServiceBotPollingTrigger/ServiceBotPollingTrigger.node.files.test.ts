/**
 * Files users send, through the Service Bot Polling Trigger (n8n-core's real TriggerContext against
 * the emulator): the same handy fields and Download Files as the webhook trigger, files downloaded
 * before the update's execution starts (updates still start in order), Group Messages Within with
 * each gathered message's file, a failed download that still runs its message, unpublishing while a
 * file comes, and the editor's test. Expected values: Telegram's convention (test/spec.ts FILES).
 */
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { ServiceBotPollingTrigger } from '../../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import type { Emulator } from '../../emulator';
import type { RunningTrigger } from '../../harness';
import { readBinary, useFileDownloads } from '../../harness';
import { SAMPLES, fileOfMessage, userSendsFile } from '../../harness/sample-files';
import { FILES } from '../../spec';
import { makeHarness } from '../../harness/trigger-nodes';
import { useEmulator, type LogSpy } from '../../harness/emulator-suite';

let emu: Emulator;
let logs: LogSpy;
const running: RunningTrigger[] = [];
useEmulator({ running, started: (started) => (emu = started), logging: (spy) => (logs = spy), pollWaits: { backoffStartMs: 20, idlePauseMs: 50, startGraceMs: 300 } });

useFileDownloads();

async function polling(options: INodeParameters = {}): Promise<RunningTrigger> {
	const parameters: INodeParameters = { updates: ['*'], options };
	const trigger = await (await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), typeVersion: 2, parameters })).startTrigger();
	running.push(trigger);
	return trigger;
}

/** The item of each execution, in order. */
const items = (trigger: RunningTrigger): INodeExecutionData[] => trigger.emitted.map((outputs) => outputs.flat()[0]);

async function bytesOf(item: INodeExecutionData, field = 'data'): Promise<Buffer> {
	const binary = item.binary?.[field];
	if (!binary) throw new Error(`the item has no binary field ${field}`);
	return await readBinary(binary);
}

const say = async (text: string): Promise<void> => {
	await emu.userSends({ chatId: emu.demo.privateChatId, userId: emu.demo.userId, text });
};

describe('Download Files, by polling', () => {
	it('each kind of file in "data" byte for byte with its name and type; the text between them runs in its place', async () => {
		const trigger = await polling({ downloadFiles: true });
		const updates: IDataObject[] = [];
		for (const kind of FILES.mediaFields) updates.push(await userSendsFile(emu, SAMPLES[kind], `a ${kind}`));
		await say('and a text');
		await trigger.waitForEmits(5);
		const [photo, document, voice, video, text] = items(trigger);
		for (const [index, item] of [photo, document, voice, video].entries()) {
			const sample = SAMPLES[FILES.mediaFields[index]];
			expect(item.json).toMatchObject({ file_kind: sample.kind, file_id: fileOfMessage(updates[index]).file_id, chatInput: `a ${sample.kind}`, file_error: null });
			expect((await bytesOf(item)).equals(sample.bytes)).toBe(true);
			expect(item.binary!.data.mimeType).toBe(sample.expectedMimeType);
		}
		expect(document.binary!.data.fileName).toBe(SAMPLES.document.fileName);
		expect(text.json).toMatchObject({ text: 'and a text', file_kind: null, file_error: null });
		expect(text.binary).toBeUndefined();
	});

	it('Download Files off: the file fields, no file, no download', async () => {
		const trigger = await polling();
		const update = await userSendsFile(emu, SAMPLES.voice);
		await trigger.waitForEmits(1);
		const [item] = items(trigger);
		expect(item.json).toMatchObject({ file_kind: 'voice', file_id: fileOfMessage(update).file_id, mime_type: 'audio/ogg' });
		expect(item.binary).toBeUndefined();
		expect(emu.callsTo('getFile')).toEqual([]);
	});

	it('a download that keeps failing: the message runs with file_error, and the next message runs after it', async () => {
		const trigger = await polling({ downloadFiles: true });
		emu.injectFault({ kind: 'drop', method: 'file', count: 100 });
		const update = await userSendsFile(emu, SAMPLES.photo, 'what is this?');
		await say('hello?');
		await trigger.waitForEmits(2);
		const [photo, text] = items(trigger);
		expect(photo.binary).toBeUndefined();
		expect(photo.json.chatInput).toBe('what is this?');
		expect(photo.json.file_error).toMatch(new RegExp(`^Could not download file '${String(fileOfMessage(update).file_id)}': the service could not be reached`));
		expect(photo.json.file_error).toMatch(/Service Bot → File → Get File$/);
		expect(text.json.text).toBe('hello?');
		expect(trigger.errors).toEqual([]);
		expect(logs.messages('warn')).toEqual([`"Service Bot Polling Trigger": ${String(photo.json.file_error)}`]);
	});

	it('unpublishing while a file downloads: its message still runs, with the file', async () => {
		const trigger = await polling({ downloadFiles: true });
		emu.injectFault({ kind: 'delay', delayMs: 500, method: 'file', count: 1 });
		await userSendsFile(emu, SAMPLES.document);
		for (let attempt = 0; attempt < 500 && emu.callsTo('file').length === 0; attempt++) await new Promise((resolve) => setTimeout(resolve, 5));
		expect(trigger.emitted).toEqual([]);
		await trigger.close();
		const [item] = items(trigger);
		expect((await bytesOf(item)).equals(SAMPLES.document.bytes)).toBe(true);
		expect(emu.pendingUpdates()).toEqual([]);
	});

	it('a test in the editor shows the next media message with its file', async () => {
		const harness = await makeHarness(emu, { nodeType: new ServiceBotPollingTrigger(), typeVersion: 2, parameters: { updates: ['*'], options: { downloadFiles: true } } });
		const test = await harness.startManualTrigger();
		await userSendsFile(emu, SAMPLES.voice);
		const { items: shown, error } = await test.result;
		await test.close();
		expect(error).toBeUndefined();
		expect((await bytesOf(shown![0][0])).equals(SAMPLES.voice.bytes)).toBe(true);
	});
});

describe('Group Messages Within: each gathered message’s file', () => {
	it('a photo and two texts: one run, the caption and texts joined, the photo’s fields, the photo in "data"', async () => {
		const trigger = await polling({ downloadFiles: true, groupMessagesSeconds: 1 });
		const photo = await userSendsFile(emu, SAMPLES.photo, 'My parcel arrived like this.');
		await say('The box is crushed.');
		await say('Can I get a refund?');
		await trigger.waitForEmits(1);
		const [item] = items(trigger);
		expect(item.json).toMatchObject({
			chatInput: 'My parcel arrived like this.\nThe box is crushed.\nCan I get a refund?',
			text: 'My parcel arrived like this.\nThe box is crushed.\nCan I get a refund?',
			file_kind: 'photo',
			file_id: fileOfMessage(photo).file_id,
			file_error: null,
		});
		const first = Number(photo.update_id);
		expect((item.json.updates as IDataObject[]).map((update) => update.update_id)).toEqual([first, first + 1, first + 2]);
		expect(Object.keys(item.binary ?? {})).toEqual(['data']);
		expect((await bytesOf(item)).equals(SAMPLES.photo.bytes)).toBe(true);
	});

	it('a text, a document and a voice note: the files in "data" and "data_2", in the order sent', async () => {
		const trigger = await polling({ downloadFiles: true, groupMessagesSeconds: 1 });
		await say('Here are my papers');
		const document = await userSendsFile(emu, SAMPLES.document);
		await userSendsFile(emu, SAMPLES.voice, 'and what I said');
		await trigger.waitForEmits(1);
		const [item] = items(trigger);
		expect(item.json).toMatchObject({ chatInput: 'Here are my papers\nand what I said', file_kind: 'document', file_id: fileOfMessage(document).file_id });
		expect(Object.keys(item.binary ?? {})).toEqual(['data', 'data_2']);
		expect((await bytesOf(item, 'data')).equals(SAMPLES.document.bytes)).toBe(true);
		expect((await bytesOf(item, 'data_2')).equals(SAMPLES.voice.bytes)).toBe(true);
	});
});
