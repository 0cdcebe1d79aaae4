/**
 * File → Get File: a file a user sent (its file_id from a trigger's item) or the bot sent (a send's
 * output) as binary data, through n8n-core's engine against the emulator, stored as n8n 2.x stores
 * files (filesystem mode: streamed to disk, the item carrying an id). Expected values are Telegram's
 * convention (test/spec.ts FILES): getFile's File on the item, the bytes at its path, up to 20 MB.
 */
import { createHash } from 'node:crypto';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { DEFAULT_RETRY_POLICY } from '../../../nodes/shared/transport/client';
import { readBinary, removeStoredFiles, storedMetadata, storeFiles, useBinaryDataStore } from '../../harness';
import { SAMPLES, fileOfMessage, serviceBytes, userSendsFile } from '../../harness/sample-files';
import { FILES, UUID } from '../../spec';
import { byId, jsonOf, pairingOf, run, runOk } from '../../harness/action-node';
import { useEmulator } from '../../harness/emulator-suite';

const ctx = useEmulator();
beforeAll(useBinaryDataStore);
afterAll(removeStoredFiles);
beforeEach(() => {
	// A download is retried as every read is; the tests wait less between attempts.
	jest.replaceProperty(DEFAULT_RETRY_POLICY, 'backoffBaseMs', 10);
});
afterEach(() => {
	jest.restoreAllMocks();
});

/** Get File with its File ID from the item (`{{ $json.file_id }}`, as after a trigger), plus `options`. */
const getFile = (options: INodeParameters = {}): INodeParameters => ({ resource: 'file', operation: 'getFile', fileId: '={{ $json.file_id }}', options });

const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

async function bytesOf(item: INodeExecutionData, field = 'data'): Promise<Buffer> {
	const binary = item.binary?.[field];
	if (!binary) throw new Error(`the item has no binary field ${field}`);
	return await readBinary(binary);
}

describe('Get File: the file a user sent, as binary data', () => {
	it.each(FILES.mediaFields)('a %s: the file in "data" byte for byte, named by its unique ID, with its MIME type; the item is what getFile answered', async (kind) => {
		const sample = SAMPLES[kind];
		const file = fileOfMessage(await userSendsFile(ctx.emu, sample));
		const [item] = await runOk(ctx, getFile(), { items: [{ file_id: file.file_id }] });
		expect(Object.keys(item.json).sort()).toEqual([...FILES.fileFields].sort());
		expect(item.json).toMatchObject({ file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: sample.bytes.length });
		expect((await bytesOf(item)).equals(sample.bytes)).toBe(true);
		const binary = item.binary!.data;
		expect(binary.mimeType).toBe(sample.expectedMimeType);
		// getFile says nothing of the name the user's app gave (a trigger's item has it): the file's unique ID, with the extension of its path.
		expect(binary.fileName).toBe(`file_${String(file.file_unique_id)}.${sample.pathExtension}`);
		expect(binary.directory).toBeUndefined();
		// Streamed into n8n's binary data store: the item holds a reference, the store the file's name and type.
		expect(binary.id).toBeDefined();
		expect(await storedMetadata(binary)).toMatchObject({ fileName: binary.fileName, mimeType: sample.expectedMimeType, fileSize: sample.bytes.length });
		expect(ctx.emu.callsTo('getFile').map((call) => call.body)).toEqual([{ file_id: file.file_id }]);
	});

	it("a photo's smallest size: the bytes the service serves for that size", async () => {
		const update = await userSendsFile(ctx.emu, SAMPLES.photo);
		const smallest = fileOfMessage(update, 'smallest');
		const [item] = await runOk(ctx, getFile(), { items: [{ file_id: smallest.file_id }] });
		expect((await bytesOf(item)).equals(await serviceBytes(ctx.emu, String(smallest.file_id)))).toBe(true);
		expect(item.json.file_size).toBe(smallest.file_size);
	});

	it('a file the bot sent: the file_id of the send\'s output gets the same bytes back', async () => {
		const report = Buffer.from('%PDF-1.7 the report the bot sent');
		const binaries = [await storeFiles({ data: { data: report, fileName: 'report.pdf', mimeType: 'application/pdf' } })];
		const [sent] = await runOk(
			ctx,
			{ resource: 'message', operation: 'sendDocument', chatId: byId(ctx.d.privateChatId), mediaSource: 'binaryFile' },
			{ binaries },
		);
		const [item] = await runOk(ctx, getFile(), { items: [sent.json] });
		expect((await bytesOf(item)).equals(report)).toBe(true);
		expect(item.binary!.data.mimeType).toBe('application/pdf');
	});

	it('Download off: only what the service says of the file, nothing downloaded', async () => {
		const file = fileOfMessage(await userSendsFile(ctx.emu, SAMPLES.document));
		const [item] = await runOk(ctx, getFile({ download: false }), { items: [{ file_id: file.file_id }] });
		expect(item.binary).toBeUndefined();
		expect(Object.keys(item.json).sort()).toEqual([...FILES.fileFields].sort());
		expect(item.json).toMatchObject({ file_id: file.file_id, file_size: SAMPLES.document.bytes.length });
		expect(ctx.emu.callsTo('file')).toEqual([]);
	});

	it('Put Output File in Field: the file goes in the field named there', async () => {
		const file = fileOfMessage(await userSendsFile(ctx.emu, SAMPLES.document));
		const [item] = await runOk(ctx, getFile({ binaryPropertyName: 'receipt' }), { items: [{ file_id: file.file_id }] });
		expect(Object.keys(item.binary ?? {})).toEqual(['receipt']);
		expect((await bytesOf(item, 'receipt')).equals(SAMPLES.document.bytes)).toBe(true);
	});

	it('several items: each gets its own file, paired with its item, in input order', async () => {
		const kinds = ['voice', 'document', 'photo'] as const;
		const items: IDataObject[] = [];
		for (const kind of kinds) items.push({ file_id: fileOfMessage(await userSendsFile(ctx.emu, SAMPLES[kind])).file_id });
		const output = await runOk(ctx, getFile(), { items });
		expect(pairingOf(output)).toEqual([0, 1, 2]);
		expect(jsonOf(output).map((json) => json.file_id)).toEqual(items.map((item) => item.file_id));
		for (const [index, kind] of kinds.entries()) expect((await bytesOf(output[index])).equals(SAMPLES[kind].bytes)).toBe(true);
	});

	it(`a file of exactly ${FILES.downloadBytes.max} bytes (20 MB, the limit): downloaded whole`, async () => {
		const bytes = Buffer.alloc(FILES.downloadBytes.max, 0x5a);
		bytes.write('%PDF-1.7 twenty megabytes');
		const file = fileOfMessage(await userSendsFile(ctx.emu, { ...SAMPLES.document, bytes, fileName: 'scan.pdf' }));
		const [item] = await runOk(ctx, getFile(), { items: [{ file_id: file.file_id }] });
		const downloaded = await bytesOf(item);
		expect(downloaded.length).toBe(FILES.downloadBytes.max);
		expect(sha256(downloaded)).toBe(sha256(bytes));
		expect(item.binary!.data.bytes).toBe(FILES.downloadBytes.max);
	});
});

describe('Get File: bad input is refused naming the field and the item, before any request', () => {
	it('a File ID that is not a media UUID (a Telegram-style ID, a number)', async () => {
		const file = fileOfMessage(await userSendsFile(ctx.emu, SAMPLES.document));
		const result = await run(ctx, getFile(), { items: [{ file_id: file.file_id }, { file_id: 'AgACAgIAAxkBAAIB' }] });
		expect(result.error?.message).toMatch(/^File ID: 'AgACAgIAAxkBAAIB' is not a media file UUID \[item 1\]$/);
		expect(ctx.emu.callsTo('getFile')).toEqual([]);
	});

	it('an empty File ID (the expression found nothing): the error says what it gave and what the item has', async () => {
		const result = await run(ctx, getFile(), { items: [{ text: 'no file here' }] });
		expect(result.error?.message).toBe('File ID: is empty: {{ $json.file_id }} gave undefined; the item has no file_id; it has: text [item 0]');
		expect(ctx.emu.callsTo('getFile')).toEqual([]);
	});

	it('Put Output File in Field left empty', async () => {
		const file = fileOfMessage(await userSendsFile(ctx.emu, SAMPLES.document));
		const result = await run(ctx, getFile({ binaryPropertyName: ' ' }), { items: [{ file_id: file.file_id }] });
		expect(result.error?.message).toBe('Put Output File in Field: is required: the name of the binary field for the file, e.g. data [item 0]');
		expect(ctx.emu.callsTo('getFile')).toEqual([]);
	});
});

describe('Get File: what the service refuses, and downloads that fail', () => {
	it('a file ID the service does not know: the error names the ID and says which IDs work', async () => {
		const unknown = '0f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
		const result = await run(ctx, getFile(), { items: [{ file_id: unknown }] });
		expect(result.error?.message).toContain(`file ID '${unknown}'`);
		expect(result.error?.message).toMatch(/invalid file_id/);
		expect(result.error?.message).toMatch(/use the file_id of a file this bot received or sent/);
		expect(ctx.emu.callsTo('file')).toEqual([]);
	});

	it('a file just over 20 MB: the error says the limit, and nothing is downloaded', async () => {
		const bytes = Buffer.alloc(FILES.downloadBytes.max + 1, 0x41);
		const file = fileOfMessage(await userSendsFile(ctx.emu, { ...SAMPLES.document, bytes, fileName: 'too-big.pdf' }));
		const result = await run(ctx, getFile(), { items: [{ file_id: file.file_id }] });
		expect(result.error?.message).toContain(`File '${String(file.file_id)}' is over the service's 20 MB download limit for bots`);
		expect(result.error?.message).toMatch(/ask the sender for a smaller file/);
		expect(ctx.emu.callsTo('file')).toEqual([]);
	});

	it.each([
		['a 500', { kind: 'status', status: 500 }],
		['a connection dropped before the answer', { kind: 'drop' }],
		['a body cut off midway', { kind: 'reset' }],
		['a body shorter than the file', { kind: 'malformed' }],
	] as const)('%s, then the file: the download is asked again and the file arrives whole', async (_name, fault) => {
		const file = fileOfMessage(await userSendsFile(ctx.emu, SAMPLES.photo));
		ctx.emu.injectFault({ ...fault, method: 'file', count: 1 });
		const [item] = await runOk(ctx, getFile(), { items: [{ file_id: file.file_id }] });
		expect((await bytesOf(item)).equals(SAMPLES.photo.bytes)).toBe(true);
		expect(ctx.emu.callsTo('file')).toHaveLength(2);
	});

	it('a download that keeps failing: the error names the file (not its path), after the read retries', async () => {
		const file = fileOfMessage(await userSendsFile(ctx.emu, SAMPLES.voice));
		ctx.emu.injectFault({ kind: 'status', status: 502, method: 'file', count: 10 });
		const result = await run(ctx, getFile(), { items: [{ file_id: file.file_id }] });
		expect(result.error?.message).toBe(`Could not download file '${String(file.file_id)}': the service answered HTTP 502, also when asked again`);
		const [download] = ctx.emu.callsTo('file');
		expect(JSON.stringify(result.error)).not.toContain(String(download.body.file_path));
		// The read retries of every read (DEFAULT_RETRY_POLICY): 1 + 3 attempts.
		expect(ctx.emu.callsTo('file')).toHaveLength(4);
	});

	it('On Error: Continue (using error output): the failed item on the error output naming its file, the others downloaded', async () => {
		const good = fileOfMessage(await userSendsFile(ctx.emu, SAMPLES.document));
		const unknown = '1a2b3c4d-5e6f-4a1b-8c2d-3e4f5a6b7c8d';
		const result = await run(ctx, getFile(), { items: [{ file_id: good.file_id }, { file_id: unknown }], onError: 'continueErrorOutput' });
		expect(result.output).toHaveLength(1);
		expect((await bytesOf(result.output[0])).equals(SAMPLES.document.bytes)).toBe(true);
		expect(result.errorOutput).toHaveLength(1);
		expect(result.errorOutput[0].json.error).toContain(`file ID '${unknown}'`);
		expect(pairingOf(result.errorOutput)).toEqual([1]);
	});

	it('the file_id is a UUID of the service, as every media ID (spec part 2, "Media reference")', async () => {
		const file = fileOfMessage(await userSendsFile(ctx.emu, SAMPLES.video));
		expect(String(file.file_id)).toMatch(UUID);
	});
});
