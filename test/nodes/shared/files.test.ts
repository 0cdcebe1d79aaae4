/**
 * A file the service keeps, as n8n binary data: the name and MIME type it gets (never from the
 * download's URL, which holds the token), and the download bounded by what the service said of the
 * file and by the 20 MB limit whatever the file server sends, through n8n-core's engine against the
 * emulator (Get File, and a trigger's Download Files), stored as n8n 2.x stores files (filesystem
 * mode). Expected values: Telegram's convention (test/spec.ts FILES).
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

import { BinaryDataService } from 'n8n-core';
// n8n-core keeps its own copy of @n8n/di: the container its helpers look the service up in.
import { Container } from 'n8n-core/node_modules/@n8n/di';
import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { fileNameOf, mimeTypeOf } from '../../../nodes/shared/files';
import { DEFAULT_RETRY_POLICY } from '../../../nodes/shared/transport/client';
import type { Emulator } from '../../emulator';
import { binaryStorageFolder, readBinary, removeStoredFiles, storedMetadata, useBinaryDataStore } from '../../harness';
import { run } from '../../harness/action-node';
import { useEmulator, type Suite } from '../../harness/emulator-suite';
import { SAMPLES, fileOfMessage, userSendsFile } from '../../harness/sample-files';
import { liveTrigger, type LiveTrigger } from '../../harness/trigger-nodes';
import { FILES } from '../../spec';

const MB = 1024 * 1024;

describe('the name and MIME type of a downloaded file', () => {
	const photo = { kind: 'photo' as const, fileId: 'F', fileUniqueId: 'AgADx1' };

	test("the sender's name, without folders (n8n would keep them as the file's directory) or control characters", () => {
		expect(fileNameOf({ fileId: 'F', fileName: 'Q3 report.pdf' }, {})).toBe('Q3 report.pdf');
		expect(fileNameOf({ fileId: 'F', fileName: '../../etc/passwd' }, {})).toBe('passwd');
		expect(fileNameOf({ fileId: 'F', fileName: 'C:\\Users\\me\\scan\u0000.png' }, {})).toBe('scan.png');
	});

	test('no Unicode bidi control or other invisible format character: an extension cannot be disguised', () => {
		// RIGHT-TO-LEFT OVERRIDE: shown as "invoiceexe.pdf", an .exe.
		expect(fileNameOf({ fileId: 'F', fileName: 'invoice\u202Efdp.exe' }, {})).toBe('invoicefdp.exe');
		// Every bidi control (embeddings, overrides, isolates, marks, the Arabic letter mark), a zero width
		// space, a word joiner, a byte order mark, a soft hyphen, a tag character, C1 controls, line separators.
		const hidden = '\u202A\u202B\u202C\u202D\u202E\u2066\u2067\u2068\u2069\u200E\u200F\u061C\u200B\u2060\uFEFF\u00AD\u{E0041}\u0085\u009B\u2028\u2029';
		expect(fileNameOf({ fileId: 'F', fileName: `re${hidden}port.pdf` }, {})).toBe('report.pdf');
		// Joiners are part of writing (Persian, Indic scripts) and of emoji: kept, they reorder nothing.
		expect(fileNameOf({ fileId: 'F', fileName: 'می\u200Cخواهم.pdf' }, {})).toBe('می\u200Cخواهم.pdf');
		expect(fileNameOf({ fileId: 'F', fileName: '👩\u200D💻.png' }, {})).toBe('👩\u200D💻.png');
		// Nothing left but invisible characters: named as a file without a name.
		expect(fileNameOf({ fileId: 'F', kind: 'document', fileUniqueId: 'D1', fileName: '\u202E\u200B' }, { file_path: 'documents/file_1.pdf' })).toBe('document_D1.pdf');
	});

	test('no name: the kind and the unique ID with the extension of the service\'s path; a photo without one is a JPEG', () => {
		expect(fileNameOf(photo, { file_path: 'photos/file_3.jpg' })).toBe('photo_AgADx1.jpg');
		expect(fileNameOf(photo, {})).toBe('photo_AgADx1.jpg');
		expect(fileNameOf({ kind: 'voice', fileId: 'F', fileUniqueId: 'v/1' }, { file_path: 'voice/file_9.oga' })).toBe('voice_v1.oga');
		expect(fileNameOf({ fileId: 'F-1' }, { file_path: 'documents/file_1', file_unique_id: 'D1' })).toBe('file_D1');
	});

	test('the type: the message\'s, else the answer\'s unless generic, else a photo\'s JPEG, else left to n8n for a name with an extension', () => {
		expect(mimeTypeOf({ fileId: 'F', mimeType: 'audio/ogg' }, 'application/octet-stream', 'v.oga')).toBe('audio/ogg');
		expect(mimeTypeOf(photo, 'image/png', 'photo.png')).toBe('image/png');
		// Telegram's file server answers every file as application/octet-stream.
		expect(mimeTypeOf(photo, 'application/octet-stream', 'photo.jpg')).toBe(FILES.photoMimeType);
		expect(mimeTypeOf({ fileId: 'F' }, 'application/octet-stream', 'file_1.pdf')).toBeUndefined();
		expect(mimeTypeOf({ fileId: 'F' }, undefined, 'file_1')).toBe('application/octet-stream');
		expect(mimeTypeOf({ fileId: 'F', mimeType: 'not a type' }, undefined, 'x.bin')).toBeUndefined();
	});
});

let emu: Emulator;
const live: LiveTrigger[] = [];
const ctx: Suite = useEmulator({ running: live, started: (started) => (emu = started) });
beforeAll(useBinaryDataStore);
afterAll(removeStoredFiles);
beforeEach(() => {
	// A download is retried as every read is; the tests wait less between attempts.
	jest.replaceProperty(DEFAULT_RETRY_POLICY, 'backoffBaseMs', 10);
});
afterEach(() => {
	jest.restoreAllMocks();
});

/** Get File with its File ID from the item (`{{ $json.file_id }}`, as after a trigger). */
const GET_FILE: INodeParameters = { resource: 'file', operation: 'getFile', fileId: '={{ $json.file_id }}', options: {} };

/** Every file in n8n's binary data store (the files, their metadata, temporary files being written). */
function storedFiles(folder = binaryStorageFolder()): string[] {
	if (folder === undefined) throw new Error('the binary data store is not started');
	return readdirSync(folder, { withFileTypes: true }).flatMap((entry) =>
		entry.isDirectory() ? storedFiles(join(folder, entry.name)) : [join(folder, entry.name)],
	);
}

/** A document the demo user sent, of `bytes`, and the path getFile gives it (asked directly, as the service would answer). */
async function sentDocument(bytes: Buffer, caption?: string): Promise<{ file: IDataObject; filePath: string }> {
	const file = fileOfMessage(await userSendsFile(emu, { ...SAMPLES.document, bytes, fileName: 'scan.pdf' }, caption));
	const answer = (await (
		await fetch(`${emu.baseUrl}/bot${emu.demo.token}/getFile`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file_id: file.file_id }) })
	).json()) as { result: { file_path: string } };
	return { file, filePath: answer.result.file_path };
}

/** The bytes the file server wrote for the only download (the emulator's record of it). */
function bytesSent(): number {
	const downloads = emu.callsTo('file');
	expect(downloads).toHaveLength(1);
	return (downloads[0].response as { file_size: number }).file_size;
}

describe('a download is bounded by the size the service stated and by the 20 MB limit, whatever the file server sends', () => {
	it('getFile without a file_size, a 200 MB body chunked without a length: refused as over the limit, read no further, nothing kept', async () => {
		const { file, filePath } = await sentDocument(Buffer.from('%PDF-1.7 a scan'));
		// getFile says nothing of the size (Telegram's file_size is optional); the file server sends 200 MB.
		emu.injectFault({ kind: 'result', method: 'getFile', result: { file_id: file.file_id, file_unique_id: file.file_unique_id, file_path: filePath } });
		emu.injectFault({ kind: 'oversize', method: 'file', bodyBytes: 200 * MB });
		const before = storedFiles();

		const result = await run(ctx, GET_FILE, { items: [{ file_id: file.file_id }] });

		expect(result.output).toEqual([]);
		expect(result.error?.message).toBe(
			`File '${String(file.file_id)}' is over the service's 20 MB download limit for bots (it came larger than 20 MB): bots cannot download it; ask the sender for a smaller file, or for a link to it`,
		);
		// Read up to the limit and one byte, then the connection closed: the server wrote the limit and
		// what the sockets' buffers took meanwhile (about 6 MB measured; Linux lets a loopback receive
		// buffer grow to 32 MB, a send buffer to 4 MB), far from the 200 MB it offered.
		expect(bytesSent()).toBeLessThan(FILES.downloadBytes.max + 36 * MB);
		// Too large is no transient failure: not asked again, and nothing of it is left in the store.
		expect(emu.callsTo('file')).toHaveLength(1);
		expect(storedFiles()).toEqual(before);
	});

	it.each([
		['with its Content-Length', undefined],
		['chunked without a length', 2 * MB],
	])('file_size 1 KB, a larger body %s: "came larger than the service said", one attempt, nothing kept', async (_how, bodyBytes) => {
		const { file, filePath } = await sentDocument(Buffer.alloc(64 * 1024, 0x41));
		emu.injectFault({ kind: 'result', method: 'getFile', result: { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: 1024, file_path: filePath } });
		if (bodyBytes !== undefined) emu.injectFault({ kind: 'oversize', method: 'file', bodyBytes });
		const before = storedFiles();

		const result = await run(ctx, GET_FILE, { items: [{ file_id: file.file_id }] });

		expect(result.output).toEqual([]);
		expect(result.error?.message).toBe(
			`Could not download file '${String(file.file_id)}': the file came larger than the service said (getFile gave 1,024 bytes); it was not kept nor asked again`,
		);
		expect(bytesSent()).toBeLessThanOrEqual(bodyBytes ?? 64 * 1024);
		expect(emu.callsTo('file')).toHaveLength(1);
		expect(storedFiles()).toEqual(before);
	});

	it('a body shorter than file_size is still asked again, and only the whole file is kept', async () => {
		const bytes = Buffer.alloc(64 * 1024, 0x42);
		const { file } = await sentDocument(bytes);
		// Half the bytes as if whole (a matching Content-Length), then the file.
		emu.injectFault({ kind: 'malformed', method: 'file' });
		const before = storedFiles();

		const result = await run(ctx, GET_FILE, { items: [{ file_id: file.file_id }] });

		expect(result.error).toBeUndefined();
		const [item] = result.output as INodeExecutionData[];
		expect((await readBinary(item.binary!.data)).equals(bytes)).toBe(true);
		expect(emu.callsTo('file').map((download) => download.status)).toEqual([200, 200]);
		// The file and its metadata, nothing of the short attempt.
		expect(storedFiles().filter((path) => !before.includes(path))).toHaveLength(2);
	});
});

describe("in n8n's in-memory binary mode (N8N_DEFAULT_BINARY_DATA_MODE=default, which holds every file whole in the item)", () => {
	beforeEach(() => {
		// No store: n8n-core reads the body into a buffer with its own reader (the events of a Readable).
		jest.replaceProperty(Container.get(BinaryDataService) as unknown as { mode: string }, 'mode', 'default');
	});

	it('a file arrives whole in the item', async () => {
		const bytes = Buffer.alloc(300 * 1024, 0x43);
		const { file } = await sentDocument(bytes);
		const result = await run(ctx, GET_FILE, { items: [{ file_id: file.file_id }] });
		expect(result.error).toBeUndefined();
		const binary = result.output[0].binary!.data;
		expect(binary.id).toBeUndefined();
		expect(Buffer.from(binary.data, 'base64').equals(bytes)).toBe(true);
	});

	it('a 200 MB body without a stated size: refused at the limit, not held, not asked again', async () => {
		const { file, filePath } = await sentDocument(Buffer.from('%PDF-1.7 a scan'));
		emu.injectFault({ kind: 'result', method: 'getFile', result: { file_id: file.file_id, file_unique_id: file.file_unique_id, file_path: filePath } });
		emu.injectFault({ kind: 'oversize', method: 'file', bodyBytes: 200 * MB });
		const result = await run(ctx, GET_FILE, { items: [{ file_id: file.file_id }] });
		expect(result.output).toEqual([]);
		expect(result.error?.message).toMatch(/is over the service's 20 MB download limit for bots \(it came larger than 20 MB\)/);
		expect(bytesSent()).toBeLessThan(FILES.downloadBytes.max + 36 * MB);
	});
});

/** The item of the first execution the trigger started, once it started. */
async function firstRun(trigger: LiveTrigger): Promise<INodeExecutionData> {
	for (let waited = 0; trigger.server.executions.length === 0; waited++) {
		if (waited === 500) throw new Error('the trigger started no execution');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
	return trigger.server.executions[0].flat()[0];
}

describe("a trigger's Download Files: the name n8n keeps, a body larger than getFile said", () => {
	it('a document named with a right-to-left override: the binary data and the store hold its name without it', async () => {
		const trigger = await liveTrigger(emu, { typeVersion: 2, parameters: { updates: ['*'], options: { downloadFiles: true } } });
		live.push(trigger);
		await userSendsFile(emu, { ...SAMPLES.document, fileName: 'invoice\u202Efdp.exe' });
		const item = await firstRun(trigger);

		expect(item.json.file_error).toBeNull();
		const binary = item.binary!.data;
		expect(binary.fileName).toBe('invoicefdp.exe');
		expect(binary.fileExtension).toBe('exe');
		expect((await storedMetadata(binary))?.fileName).toBe('invoicefdp.exe');
		// The handy field keeps what the message said, as received.
		expect(item.json.file_name).toBe('invoice\u202Efdp.exe');
	});

	it('a body larger than getFile said: the message runs without the file, file_error says so and how to fetch it later, one attempt', async () => {
		// Sent while no trigger listens: the service keeps it, and pushes it once the trigger is published.
		const { file, filePath } = await sentDocument(Buffer.alloc(64 * 1024, 0x44), 'my scan');
		emu.injectFault({ kind: 'result', method: 'getFile', result: { file_id: file.file_id, file_unique_id: file.file_unique_id, file_size: 1024, file_path: filePath } });
		emu.injectFault({ kind: 'oversize', method: 'file', bodyBytes: 2 * MB });
		const trigger = await liveTrigger(emu, { typeVersion: 2, parameters: { updates: ['*'], options: { downloadFiles: true } } });
		live.push(trigger);
		const item = await firstRun(trigger);

		expect(item.binary).toBeUndefined();
		expect(item.json).toMatchObject({ file_id: file.file_id, text: 'my scan' });
		// Named by the name the sender gave it, which the item shows as file_name.
		expect(item.json.file_error).toBe(
			`Could not download file '${String(item.json.file_name)}': the file came larger than the service said (getFile gave 1,024 bytes); it was not kept nor asked again. The message ran without it: its file_id is on the item, to fetch it later with Service Bot → File → Get File`,
		);
		expect(emu.callsTo('file')).toHaveLength(1);
	});
});
