/**
 * Real-n8n scenarios of the action node beyond the examples: what n8n does around the node.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

import { DEMO_CREDENTIAL_ID, DEMO_CREDENTIAL_NAME } from '../dev/demo';
import type { Scenario } from './lib/runner';
import { PACKAGE_NAME } from '../real-n8n/install';
import { hasEnded, type Json } from '../real-n8n/n8n';
import { launchBrowser, openNode, signIn } from './lib/browser';
import { waitFor } from '../real-n8n/processes';

const ERROR_OUTPUT_WORKFLOW = 'SvcBotErrorOut01';

/** Manual trigger → Code (three items) → Service Bot "Send Message" with "Continue (using error output)" → Sent | Failed. */
function errorOutputWorkflow(items: Array<{ chat: string; text: string }>): Json {
	const node = (name: string, type: string, position: [number, number], extra: Json = {}): Json => ({
		id: `e0e0e0e0-0000-4000-8000-${String(position[0]).padStart(6, '0')}${String(position[1] + 500).padStart(6, '0')}`,
		name,
		type,
		typeVersion: 1,
		position,
		parameters: {},
		...extra,
	});
	return {
		id: ERROR_OUTPUT_WORKFLOW,
		name: 'Service Bot: error output',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			node('Start', 'n8n-nodes-base.manualTrigger', [0, 0]),
			node('Items', 'n8n-nodes-base.code', [220, 0], {
				typeVersion: 2,
				parameters: { jsCode: `return ${JSON.stringify(items.map((json) => ({ json })))};` },
			}),
			node('Send', `${PACKAGE_NAME}.serviceBot`, [440, 0], {
				typeVersion: 2,
				onError: 'continueErrorOutput',
				parameters: {
					resource: 'message',
					operation: 'sendMessage',
					chatId: { __rl: true, mode: 'id', value: '={{ $json.chat }}' },
					text: '={{ $json.text }}',
					options: { concurrency: 1 },
				},
				credentials: { serviceBotApi: { id: DEMO_CREDENTIAL_ID, name: DEMO_CREDENTIAL_NAME } },
			}),
			node('Sent', 'n8n-nodes-base.noOp', [660, -100]),
			node('Failed', 'n8n-nodes-base.noOp', [660, 100]),
		],
		connections: {
			Start: { main: [[{ node: 'Items', type: 'main', index: 0 }]] },
			Items: { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
			Send: { main: [[{ node: 'Sent', type: 'main', index: 0 }], [{ node: 'Failed', type: 'main', index: 0 }]] },
		},
		pinData: {},
	};
}

const errorOutput: Scenario = {
	name: 'On Error "Continue (using error output)": sent items on the success output, input and service errors on the error output',
	async run(ctx) {
		const emulator = await ctx.emulator();
		const n8n = await ctx.n8n();
		await ctx.importDemo(n8n, emulator);
		const items = [
			{ chat: emulator.demo.privateChatId, text: 'good' },
			{ chat: String(emulator.demo.foreignChatId), text: 'refused by the service' },
			{ chat: 'not a chat', text: 'bad input' },
		];
		await n8n.importWorkflows([errorOutputWorkflow(items)]);
		const result = await n8n.execute(ERROR_OUTPUT_WORKFLOW);
		assert.equal(result.code, 0, `n8n execute failed:\n${result.output.slice(-3000)}`);
		const runData = result.data?.data?.resultData?.runData;
		const outputs = runData?.Send?.[0]?.data?.main as Json[][] | undefined;
		assert.ok(outputs, `no run data for the Service Bot node:\n${result.output.slice(-3000)}`);
		const [success, failed] = outputs;
		assert.deepEqual(
			success.map((item: Json) => item.json.text),
			['good'],
			'only the sent item is on the success output',
		);
		assert.deepEqual(
			failed.map((item: Json) => item.json.error),
			[
				'Forbidden: bot is not a member of the chat. Add the bot to the chat (as an administrator where posting needs it, such as a channel), then run the workflow again',
				"Chat: 'not a chat' is not a chat UUID or @username [item 2]",
			],
			'the service error and the input error are on the error output',
		);
		assert.deepEqual(
			failed.map((item: Json) => item.pairedItem?.item),
			[1, 2],
			'each error item is paired with its input',
		);
		// What to do next rides in `message`: n8n before 2.35.2 (all of 1.x) routes only `{error}` or `{error, message}`.
		for (const item of failed) assert.equal(typeof item.json.message, 'string', 'error items say what to do next');
		assert.equal(failed[0].json.details, undefined, 'no key beyond error and message');
		assert.deepEqual(
			runData.Failed?.[0]?.data?.main?.[0]?.map((item: Json) => item.json.text),
			['refused by the service', 'bad input'],
			'the error branch received both failed items with their input',
		);
		assert.deepEqual(
			(await emulator.calls('sendMessage')).map((call) => call.body.text),
			['good', 'refused by the service'],
			'the bad input was never sent',
		);
		ctx.log(`success output: 1 sent item; error output: the refused and the bad item, paired; message: "${String(failed[0].json.message)}"`);
	},
};

const UPLOAD_WORKFLOW = 'SvcBotUploadDoc1';

/** Manual trigger → Read/Write Files from Disk (a report) → Service Bot "Send Document" from the binary file. */
function uploadWorkflow(path: string, chat: string): Json {
	const credentials = { serviceBotApi: { id: DEMO_CREDENTIAL_ID, name: DEMO_CREDENTIAL_NAME } };
	return {
		id: UPLOAD_WORKFLOW,
		name: 'Service Bot: send a file from disk',
		active: false,
		settings: { executionOrder: 'v1' },
		nodes: [
			{ id: 'f1f1f1f1-0000-4000-8000-000000000001', name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				id: 'f1f1f1f1-0000-4000-8000-000000000002',
				name: 'Read Report',
				type: 'n8n-nodes-base.readWriteFile',
				typeVersion: 1,
				position: [220, 0],
				parameters: { operation: 'read', fileSelector: path, options: {} },
			},
			{
				id: 'f1f1f1f1-0000-4000-8000-000000000003',
				name: 'Send Report',
				type: `${PACKAGE_NAME}.serviceBot`,
				typeVersion: 2,
				position: [440, 0],
				parameters: {
					resource: 'message',
					operation: 'sendDocument',
					chatId: { __rl: true, mode: 'id', value: chat },
					mediaSource: 'binaryFile',
					binaryPropertyName: 'data',
					additionalFields: { caption: 'The quarterly report' },
				},
				credentials,
			},
		],
		connections: {
			Start: { main: [[{ node: 'Read Report', type: 'main', index: 0 }]] },
			'Read Report': { main: [[{ node: 'Send Report', type: 'main', index: 0 }]] },
		},
		pinData: {},
	};
}

const sendFileFromDisk: Scenario = {
	name: 'Read/Write Files from Disk → Send Document (Binary File): the chat shows the document with its name and size',
	async run(ctx) {
		const emulator = await ctx.emulator();
		// n8n 2.x reads files only under N8N_RESTRICT_FILE_ACCESS_TO.
		const files = join(ctx.dir, 'files');
		await mkdir(files, { recursive: true });
		const report = Buffer.alloc(3 * 1024 * 1024);
		for (let at = 0; at < report.length; at += 4) report.writeUInt32BE(at, at);
		report.write('%PDF-1.7', 0);
		const path = join(files, 'quarterly-report.pdf');
		await writeFile(path, report);
		// Files in n8n's filesystem mode (n8n 2.x's default; n8n 1.x keeps them in memory and prints them whole).
		const n8n = await ctx.n8n({ env: { N8N_RESTRICT_FILE_ACCESS_TO: files, N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' } });
		await ctx.importDemo(n8n, emulator);
		await n8n.importWorkflows([uploadWorkflow(path, emulator.demo.privateChatId)]);
		const result = await n8n.execute(UPLOAD_WORKFLOW);
		assert.equal(result.code, 0, `n8n execute failed:\n${result.output.slice(-3000)}`);
		const sent = result.data?.data?.resultData?.runData?.['Send Report']?.[0]?.data?.main?.[0]?.[0]?.json as Json | undefined;
		assert.ok(sent, `no output of Send Report:\n${result.output.slice(-3000)}`);

		const [call] = await emulator.calls('sendDocument');
		assert.deepEqual(
			call.body.document,
			{ file: { name: 'quarterly-report.pdf', type: 'application/pdf', size: report.length, sha256: createHash('sha256').update(report).digest('hex') } },
			'the service received the file whole, with its name and type',
		);
		assert.equal(call.body.caption, 'The quarterly report');
		const [message] = await emulator.history(emulator.demo.privateChatId);
		const document = message.document as { file_id?: string; file_name?: string; file_size?: number } | undefined;
		assert.equal(document?.file_name, 'quarterly-report.pdf');
		assert.equal(document?.file_size, report.length);
		assert.equal(sent.file_id, document?.file_id, "the node's output carries the new file_id on top");

		const browser = await launchBrowser(ctx.install);
		ctx.defer(() => browser.close());
		const { page } = browser;
		await page.goto(`${emulator.baseUrl}/`, { waitUntil: 'domcontentloaded', timeout: 60_000 });
		// The chat page shows the document as a card: its name (a link that opens it), size and type.
		const shown = page.locator('.msg.bot .file').filter({ hasText: 'quarterly-report.pdf' }).first();
		await shown.waitFor({ state: 'visible', timeout: 60_000 });
		const card = (await shown.innerText()).replace(/\s+/g, ' ');
		assert.match(card, /quarterly-report\.pdf/);
		assert.match(card, /3\.0 MB · application\/pdf/, `the card shows size and type: ${card}`);
		const opened = await fetch(new URL(String(await shown.locator('a.name').getAttribute('href')), emulator.baseUrl));
		assert.equal(createHash('sha256').update(Buffer.from(await opened.arrayBuffer())).digest('hex'), createHash('sha256').update(report).digest('hex'), 'the link opens the file sent');
		await page.screenshot({ path: join(ctx.screenshotDir, 'chat-page-document.png') });
		ctx.log(`sent a ${report.length}-byte PDF from disk; the chat shows it as "${card}" and its link opens the same bytes`);

		// What the user set up, as the editor shows it.
		await n8n.start();
		await n8n.setupOwner();
		await signIn(page, n8n.baseUrl);
		await page.goto(`${n8n.baseUrl}/workflow/${UPLOAD_WORKFLOW}`, { waitUntil: 'domcontentloaded', timeout: 120_000 });
		const panelShot = join(ctx.screenshotDir, 'send-document-binary-file.png');
		await openNode(page, 'Send Report', ['Source', 'Binary File', 'Input Binary Field', 'data', 'File Name', 'MIME Type'], panelShot.replace('.png', '-failed.png'));
		await page.screenshot({ path: panelShot });
		ctx.log(`the Send Report panel shows Source: Binary File, Input Binary Field: data → ${panelShot}`);
	},
};

/**
 * Files users send, as a workflow keeps them: Service Bot Trigger with Download Files → n8n's
 * Read/Write Files from Disk writing the item's binary `data` under the file's own name.
 */
const receiveFileToDisk: Scenario = {
	name: 'a document a user sends reaches the workflow as a file (trigger with Download Files): Read/Write Files from Disk saves it byte-identical under its name',
	async run(ctx) {
		const emulator = await ctx.emulator();
		const files = join(ctx.dir, 'received');
		await mkdir(files, { recursive: true });
		// n8n 2.x writes files only under N8N_RESTRICT_FILE_ACCESS_TO; binary data on disk (n8n 1.x keeps it in memory otherwise).
		const n8n = await ctx.n8n({ env: { N8N_RESTRICT_FILE_ACCESS_TO: files, N8N_DEFAULT_BINARY_DATA_MODE: 'filesystem' } });
		await n8n.start();
		await n8n.setupOwner();
		const { credentialId } = await ctx.createDemo(n8n, emulator);
		const credentials = { serviceBotApi: { id: credentialId, name: DEMO_CREDENTIAL_NAME } };
		const created = await n8n.createWorkflow({
			name: 'Keep the files users send',
			settings: { executionOrder: 'v1' },
			nodes: [
				{
					id: 'f2f2f2f2-0000-4000-8000-000000000001',
					name: 'Service Bot Trigger',
					type: `${PACKAGE_NAME}.serviceBotTrigger`,
					typeVersion: 2,
					position: [0, 0],
					webhookId: 'f2f2f2f2-0000-4000-8000-0000000000aa',
					parameters: { updates: ['message'], options: { downloadFiles: true } },
					credentials,
				},
				{
					id: 'f2f2f2f2-0000-4000-8000-000000000002',
					name: 'Save the File',
					type: 'n8n-nodes-base.readWriteFile',
					typeVersion: 1,
					position: [260, 0],
					parameters: { operation: 'write', fileName: `=${files}/{{ $json.file_name }}`, dataPropertyName: 'data', options: {} },
				},
			],
			connections: { 'Service Bot Trigger': { main: [[{ node: 'Save the File', type: 'main', index: 0 }]] } },
		});
		await n8n.activate(String(created.id));
		await waitFor('the trigger to register its webhook', async () => (await emulator.webhook()) ?? undefined, { limitMs: 60_000 });

		const invoice = Buffer.alloc(2 * 1024 * 1024 + 17);
		for (let at = 0; at + 4 <= invoice.length; at += 4) invoice.writeUInt32BE(at ^ 0x5a5a5a5a, at);
		invoice.write('%PDF-1.7', 0);
		await emulator.userSendsFile('document', invoice, { fileName: 'invoice-1042.pdf', mimeType: 'application/pdf', caption: 'my invoice' });
		// Read the file only once the run has ended: Read/Write Files from Disk creates it before its bytes are written.
		const execution = await waitFor(
			'the workflow run to end',
			async () => (await n8n.executions(String(created.id))).find(hasEnded),
			{ limitMs: 60_000 },
		);
		assert.equal(execution.status, 'success');
		const saved = join(files, 'invoice-1042.pdf');
		const bytes = await readFile(saved);
		assert.equal(createHash('sha256').update(bytes).digest('hex'), createHash('sha256').update(invoice).digest('hex'), 'the saved file is the one the user sent');
		ctx.log(`a ${invoice.length}-byte PDF sent by the user was saved to disk by the workflow, byte-identical (${saved})`);
	},
};

export const ACTION_SCENARIOS: Scenario[] = [errorOutput];

/** Files from the workflow (listed after the other scenarios, so their numbers stay). */
export const UPLOAD_SCENARIOS: Scenario[] = [sendFileFromDisk, receiveFileToDisk];
