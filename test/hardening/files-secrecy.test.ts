/**
 * Files users send, and the bot token (issue 32): a file's bytes are at
 * `{base URL}/file/bot<token>/<file_path>`, so the download's URL holds the token. With a token full
 * of regex and URL metacharacters (HOSTILE_TOKEN), every way a download can go — Get File in the
 * action node, Download Files in both triggers; downloaded, metadata only, refused, over the limit,
 * failing with each fault the emulator has — is run, and the token is searched for in every output
 * item (its binary data's name, directory, MIME type and id included), the metadata n8n's binary
 * data store keeps beside each file (and the names of its files), the run data, every error with its
 * cause chain, n8n's error reports, and everything printed or logged during the whole file.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

import type { IDataObject, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotPollingTrigger } from '../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { DEFAULT_RETRY_POLICY } from '../../nodes/shared/transport/client';
import type { Emulator } from '../emulator';
import { credentialsFor, startTestEmulator } from '../harness/emulator-suite';
import { binaryStorageFolder, errorReports, executeNode, removeStoredFiles, startWebhookServer, storedMetadata, useBinaryDataStore } from '../harness';
import { SAMPLES, fileOfMessage, type SampleFile } from '../harness/sample-files';
import { FILES } from '../spec';
import { SECRET_HEADER, makeHarness } from '../harness/trigger-nodes';
import { findLeak, HOSTILE_TOKEN, quotedPaths, safeJson, startCapture, startPathEcho, textsOf, type Capture, type PathEcho } from './secrecy';

const TOKEN = HOSTILE_TOKEN;

let emu: Emulator;
let chatId: string;
let capture: Capture;
let fasterRetries: jest.ReplaceProperty<number>;
/** Every text read off every result of the file, scanned at the end. */
const seen: string[] = [];
/** Every binary data an item carried, whose stored metadata is scanned at the end. */
const binaries: INodeExecutionData['binary'][] = [];

function keepItems(items: readonly INodeExecutionData[]): void {
	seen.push(safeJson(items));
	for (const item of items) if (item.binary) binaries.push(item.binary);
}

/** The demo user sends `sample` to the hostile-token bot's chat. */
async function sends(sample: SampleFile, caption?: string): Promise<IDataObject> {
	const { kind, bytes, fileName, mimeType, width, height, duration } = sample;
	return (await emu.userSends({ chatId, userId: emu.demo.userId, caption, botToken: TOKEN, media: { kind, bytes, fileName, mimeType, width, height, duration } })) as unknown as IDataObject;
}

/** The service's words quoting the request path, the token in each spelling (a refusal that echoes the request). */
const quotingThePath = (said: string, method: string): string => `${said} (request ${quotedPaths(TOKEN, emu.baseUrl, method).join(' ; ')})`;

async function getFile(fileId: unknown, options: INodeParameters = {}, baseUrl?: string): Promise<void> {
	const { continueOnFail, ...fields } = options;
	const result = await executeNode({
		nodeType: new ServiceBot(),
		parameters: { resource: 'file', operation: 'getFile', fileId: '={{ $json.file_id }}', options: fields },
		items: [{ file_id: fileId as string }],
		credentials: baseUrl ? { accessToken: TOKEN, baseUrl } : credentialsFor(emu, TOKEN),
		continueOnFail: continueOnFail === true,
	});
	seen.push(...textsOf(result.error), safeJson(result.run));
	keepItems(result.output);
}

/** Every name and metadata file in n8n's binary data store's folder. */
function storeContents(folder: string): string[] {
	const out: string[] = [];
	for (const name of readdirSync(folder)) {
		const path = join(folder, name);
		out.push(path);
		if (statSync(path).isDirectory()) out.push(...storeContents(path));
		else if (name.endsWith('.metadata')) out.push(readFileSync(path, 'utf8'));
	}
	return out;
}

describe('files users send: the bot token appears nowhere (the whole describe is captured and scanned)', () => {
	beforeAll(async () => {
		emu = await startTestEmulator();
		const { botId } = emu.addBot({ token: TOKEN, name: 'Hostile Token Bot' });
		({ chatId } = emu.addChat({
			type: 'group',
			title: 'File secrecy',
			members: [
				{ userId: botId, status: 'administrator' },
				{ userId: emu.demo.userId, status: 'member' },
			],
		}));
		await useBinaryDataStore();
		errorReports.length = 0;
		// A download is retried as every read is; the tests wait less between attempts.
		fasterRetries = jest.replaceProperty(DEFAULT_RETRY_POLICY, 'backoffBaseMs', 10);
		capture = startCapture();
	});

	beforeEach(() => {
		emu.clearFaults();
	});

	afterAll(async () => {
		capture.stop();
		fasterRetries.restore();
		await emu.close();
		removeStoredFiles();
	});

	it('Get File: every kind downloaded, metadata only, an unknown ID, a file over the limit, and each fault of the download', async () => {
		for (const kind of FILES.mediaFields) await getFile(fileOfMessage(await sends(SAMPLES[kind])).file_id);
		const document = fileOfMessage(await sends(SAMPLES.document)).file_id;
		await getFile(document, { download: false });
		await getFile('6f1e2d3c-4b5a-4968-8776-655443322110');
		await getFile(fileOfMessage(await sends({ ...SAMPLES.document, bytes: Buffer.alloc(FILES.downloadBytes.max + 1), fileName: 'big.pdf' })).file_id);
		for (const fault of [
			{ kind: 'status', status: 404, description: 'Not Found' },
			{ kind: 'status', status: 502 },
			{ kind: 'status', status: 429, retryAfter: 0 },
			{ kind: 'html' },
			{ kind: 'drop' },
			{ kind: 'reset' },
			{ kind: 'malformed' },
			// A refusal that quotes the download's path, the token in it.
			{ kind: 'status', status: 400, description: quotingThePath('Bad Request: wrong file_id or the file is temporarily unavailable', 'file') },
			{ kind: 'status', status: 404, description: quotingThePath('Not Found', 'file') },
		] as const) {
			emu.clearFaults();
			emu.injectFault({ ...fault, method: 'file', count: 20 });
			await getFile(document);
			await getFile(document, { continueOnFail: true });
		}
		expect(binaries.length).toBeGreaterThanOrEqual(FILES.mediaFields.length);
	});

	it('Get File: getFile refused quoting its path, and a download answered with a redirect that quotes it (a page, a JSON body)', async () => {
		const document = fileOfMessage(await sends(SAMPLES.document)).file_id;
		for (const [status, said] of [
			[400, 'Bad Request: invalid file_id'],
			[400, 'Bad Request: file is too big'],
			[400, 'Bad Request: wrong remote file identifier specified'],
			[403, 'Forbidden: bot was blocked by the user'],
		] as const) {
			emu.clearFaults();
			emu.injectFault({ kind: 'status', status, description: quotingThePath(said, 'getFile'), method: 'getFile', count: 20 });
			await getFile(document);
			await getFile(document, { continueOnFail: true });
		}
		emu.clearFaults();
		const echo = await startPathEcho(emu.baseUrl);
		echo.only = '/file/';
		try {
			for (const kind of ['redirectPage', 'redirectJson'] as const satisfies readonly PathEcho[]) {
				echo.echo = kind;
				await getFile(document, {}, echo.baseUrl);
				await getFile(document, { continueOnFail: true }, echo.baseUrl);
			}
			// Through the stand-in unchanged, the file comes as it does directly.
			echo.echo = 'none';
			const before = binaries.length;
			await getFile(document, {}, echo.baseUrl);
			expect(binaries.length).toBe(before + 1);
		} finally {
			await echo.close();
		}
	});

	it('Service Bot Trigger with Download Files: a file downloaded, and one whose download fails', async () => {
		// The messages the Get File test sent to this bot are dropped: only these two run.
		const harness = await makeHarness(emu, { token: TOKEN, typeVersion: 2, parameters: { updates: ['*'], options: { downloadFiles: true, dropPendingUpdates: true } } });
		const server = await startWebhookServer(harness);
		await harness.activate();
		try {
			await sends(SAMPLES.photo, 'first');
			for (let attempt = 0; attempt < 500 && server.executions.length < 1; attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
			emu.injectFault({ kind: 'status', status: 500, method: 'file', count: 20 });
			await sends(SAMPLES.voice, 'second');
			for (let attempt = 0; attempt < 500 && server.executions.length < 2; attempt++) await new Promise((resolve) => setTimeout(resolve, 10));
			const items = server.executions.map((outputs) => outputs.flat()[0]);
			expect(items.map((item) => item.json.chatInput)).toEqual(['first', 'second']);
			expect(items[1].json.file_error).toMatch(/^Could not download file/);
			keepItems(items);
			seen.push(safeJson(server.receipts));
		} finally {
			await harness.delete();
			await server.close();
		}
		// A push with the wrong secret is refused, as before.
		const refused = await harness.receive({ headers: { [SECRET_HEADER]: 'wrong' }, body: {} });
		expect(refused.status).toBe(403);
	});

	it('Service Bot Polling Trigger with Download Files: a file downloaded, one too big to download, and one refused quoting its path', async () => {
		const harness = await makeHarness(emu, { token: TOKEN, nodeType: new ServiceBotPollingTrigger(), typeVersion: 2, parameters: { updates: ['*'], options: { downloadFiles: true } } });
		const trigger = await harness.startTrigger();
		await sends(SAMPLES.document, 'a receipt');
		await sends({ ...SAMPLES.video, bytes: Buffer.alloc(FILES.downloadBytes.max + 1) }, 'a long video');
		await trigger.waitForEmits(2);
		emu.injectFault({ kind: 'status', status: 400, description: quotingThePath('Bad Request: wrong file_id', 'file'), method: 'file', count: 20 });
		await sends(SAMPLES.voice, 'a voice note');
		await trigger.waitForEmits(3);
		await trigger.close();
		const items = trigger.emitted.map((outputs) => outputs.flat()[0]);
		expect(items[1].json.file_error).toMatch(/20 MB download limit/);
		expect(items[2].json.file_error).toMatch(/^(The service does not know file ID|Could not download file)/);
		keepItems(items);
		seen.push(...trigger.errors.flatMap((error) => textsOf(error)));
	});

	it('in any output item, binary data, stored file metadata, run data, error, error report or captured line of the whole file', async () => {
		const stored: string[] = [];
		for (const binary of binaries) {
			for (const file of Object.values(binary ?? {})) stored.push(safeJson(file), safeJson(await storedMetadata(file)));
		}
		const folder = binaryStorageFolder();
		if (!folder) throw new Error('the binary data store was not started');
		stored.push(...storeContents(folder));
		const everything = [...seen, ...stored, ...errorReports.flatMap((report) => textsOf(report)), ...capture.lines];
		// The scan had material: files, their metadata, errors and log lines.
		expect(binaries.length).toBeGreaterThan(5);
		expect(seen.length).toBeGreaterThan(20);
		// The triggers' warnings about failed downloads were captured (the capture ran all along).
		expect(capture.lines.filter((line) => line.includes('Could not download file') || line.includes('download limit')).length).toBeGreaterThanOrEqual(2);
		const leak = findLeak(TOKEN, everything);
		if (leak) throw new Error(`the token leaked as ${leak}`);
	});
});
