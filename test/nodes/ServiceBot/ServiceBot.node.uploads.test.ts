/**
 * Files from the workflow: Send Photo / Video / Document / Voice with Source "Binary File" upload the
 * input item's binary data (stored as n8n 2.x stores it, in filesystem mode) with the request, as
 * multipart/form-data (Telegram's convention; the spec does not show uploads). Expected values come
 * from that convention: the file in the method's media field, Telegram's 50 MB upload limit.
 */
import { createHash } from 'node:crypto';

import type { IBinaryKeyData, IDataObject, INodeParameters } from 'n8n-workflow';

import { removeStoredFiles, storeFiles } from '../../harness';
import type { TestFile } from '../../harness';
import { byId, jsonOf, pairingOf, run, runOk } from '../../harness/action-node';
import { useEmulator } from '../../harness/emulator-suite';

const ctx = useEmulator();
afterAll(removeStoredFiles);

const MB = 1024 * 1024;
/** A PNG's first bytes: an image to the service. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(200, 3)]);
const sha256 = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

/** The file the emulator received in a call's field (its record: size and SHA-256). */
const received = (method: string, field: string, index = 0): { size: number; sha256: string; fileName?: string; mimeType?: string } =>
	ctx.emu.callsTo(method)[index].body[field] as { size: number; sha256: string; fileName?: string; mimeType?: string };

const upload = (operation: string, extra: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation,
	chatId: byId('={{ $json.chat }}'),
	mediaSource: 'binaryFile',
	...extra,
});

const files = async (...list: Array<Record<string, TestFile>>): Promise<IBinaryKeyData[]> => await Promise.all(list.map(async (one) => await storeFiles(one)));

describe('Send Photo / Video / Document / Voice from a binary file', () => {
	it.each([
		['sendPhoto', 'photo', PNG, 'chart.png', 'image/png'],
		['sendVideo', 'video', Buffer.alloc(3000, 1), 'clip.mp4', 'video/mp4'],
		['sendDocument', 'document', Buffer.from('%PDF-1.7 quarterly report'), 'report.pdf', 'application/pdf'],
		['sendVoice', 'voice', Buffer.alloc(900, 2), 'note.ogg', 'audio/ogg'],
	])('%s uploads the item\'s "data" file in "%s" with caption and keyboard; the output has its file_id on top', async (operation, field, data, fileName, mimeType) => {
		const binaries = await files({ data: { data, fileName, mimeType } });
		const out = await runOk(
			ctx,
			upload(operation, {
				additionalFields: { caption: 'Q3 <b>numbers</b>', parseMode: 'HTML' },
				replyMarkup: 'inlineKeyboard',
				keyboardMode: 'json',
				keyboardJson: '[[{"text": "Thanks", "callback_data": "thanks"}]]',
			}),
			{ items: [{ chat: ctx.d.privateChatId }], binaries },
		);
		expect(received(operation, field)).toMatchObject({ size: data.length, sha256: sha256(data), fileName, mimeType });
		const body = ctx.emu.callsTo(operation)[0].body;
		expect(body).toMatchObject({ chat_id: ctx.d.privateChatId, caption: 'Q3 <b>numbers</b>', parse_mode: 'HTML' });
		expect(JSON.parse(body.reply_markup as string)).toEqual({ inline_keyboard: [[{ text: 'Thanks', callback_data: 'thanks' }]] });
		const [message] = jsonOf(out);
		const stored = ctx.emu.history(ctx.d.privateChatId)[0][field as 'document'] as { file_id: string; file_size?: number };
		expect(stored.file_size).toBe(data.length);
		expect(message.file_id).toBe(stored.file_id);
		expect((message[field] as IDataObject).file_id).toBe(stored.file_id);
	});

	it('the output file_id sends the same file again by Media ID, without uploading it', async () => {
		const binaries = await files({ data: { data: Buffer.from('%PDF-1.7 once'), fileName: 'once.pdf', mimeType: 'application/pdf' } });
		const [first] = jsonOf(await runOk(ctx, upload('sendDocument'), { items: [{ chat: ctx.d.privateChatId }], binaries }));
		await runOk(
			ctx,
			{ resource: 'message', operation: 'sendDocument', chatId: byId('={{ $json.chat }}'), document: '={{ $json.file_id }}' },
			{ items: [{ chat: ctx.d.groupChatId, file_id: first.file_id }] },
		);
		expect(ctx.emu.callsTo('sendDocument')[1].body).toEqual({ chat_id: ctx.d.groupChatId, document: first.file_id });
		expect(ctx.emu.history(ctx.d.groupChatId)[0].document).toMatchObject({ file_id: first.file_id, file_name: 'once.pdf', file_size: 13 });
	});

	it('File Name and MIME Type override the binary data\'s own', async () => {
		const binaries = await files({ data: { data: Buffer.from('a,b\n1,2\n'), fileName: 'export', mimeType: 'application/octet-stream' } });
		await runOk(ctx, upload('sendDocument', { fileName: 'numbers.csv', mimeType: 'text/csv' }), { items: [{ chat: ctx.d.privateChatId }], binaries });
		expect(received('sendDocument', 'document')).toMatchObject({ fileName: 'numbers.csv', mimeType: 'text/csv', size: 8 });
	});

	it('another binary property, and binary data kept in memory (no id, base64 in the item) upload the same way', async () => {
		const inMemory: IBinaryKeyData = { attachment: { data: Buffer.from('held in memory').toString('base64'), mimeType: 'text/plain', fileName: 'memo.txt' } };
		await runOk(ctx, upload('sendDocument', { binaryPropertyName: 'attachment' }), { items: [{ chat: ctx.d.privateChatId }], binaries: [inMemory] });
		expect(received('sendDocument', 'document')).toMatchObject({ fileName: 'memo.txt', size: 14, sha256: sha256(Buffer.from('held in memory')) });
	});

	it('a 40 MB file arrives whole', async () => {
		const data = Buffer.alloc(40 * MB);
		for (let at = 0; at < data.length; at += 4096) data.writeUInt32BE(at, at);
		const binaries = await files({ data: { data, fileName: 'backup.tar', mimeType: 'application/x-tar' } });
		const [message] = jsonOf(await runOk(ctx, upload('sendDocument'), { items: [{ chat: ctx.d.privateChatId }], binaries }));
		expect(received('sendDocument', 'document')).toMatchObject({ size: 40 * MB, sha256: sha256(data) });
		expect(message.document).toMatchObject({ file_name: 'backup.tar', file_size: 40 * MB });
	});

	it('50 items with files to 10 chats: each chat gets its files in input order, output paired in input order', async () => {
		const chats = [ctx.d.privateChatId, ctx.d.groupChatId, ctx.d.channelChatId];
		for (let index = 0; chats.length < 10; index++) {
			chats.push(
				ctx.emu.addChat({ type: 'group', title: `Files ${index}`, members: [{ userId: ctx.d.botId, status: 'member' }] }).chatId,
			);
		}
		const items = Array.from({ length: 50 }, (_, index) => ({ chat: chats[(index * 3 + Math.floor(index / 7)) % 10], index }));
		const binaries = await files(...items.map(({ index }) => ({ data: { data: Buffer.from(`file number ${index}`), fileName: `file-${index}.txt`, mimeType: 'text/plain' } })));
		// Uneven answer times, so uploads finish out of order.
		ctx.emu.injectFault({ kind: 'delay', delayMs: 300, count: 1 });
		ctx.emu.injectFault({ kind: 'delay', delayMs: 30, count: 9 });
		const out = await runOk(ctx, upload('sendDocument', { options: { concurrency: 8 } }), { items, binaries });
		for (const chat of chats) {
			const expected = items.filter((item) => item.chat === chat).map((item) => `file-${item.index}.txt`);
			expect(ctx.emu.history(chat).map((message) => (message.document as { file_name: string }).file_name)).toEqual(expected);
		}
		expect(jsonOf(out).map((message) => (message.document as IDataObject).file_name)).toEqual(items.map((item) => `file-${item.index}.txt`));
		expect(pairingOf(out)).toEqual(items.map((_, index) => index));
	});
});

describe('a file that cannot be sent is refused before any request, naming the item and the field', () => {
	it.each([
		[
			'the binary property is missing: the properties the item has are named',
			async () => [await storeFiles({ invoice: { data: Buffer.from('x'), fileName: 'a.pdf' }, photo_1: { data: PNG, fileName: 'b.png' } })],
			{},
			`Input Binary Field: the item has no binary property "data"; it has "invoice" or "photo_1" [item 0]`,
		],
		[
			'the item has no binary data at all',
			async () => [undefined],
			{},
			'Input Binary Field: the item has no binary data: the node before must output a file (e.g. Read/Write Files from Disk, or HTTP Request with Response Format "File") [item 0]',
		],
		[
			'the file is empty',
			async () => [await storeFiles({ data: { data: Buffer.alloc(0), fileName: 'empty.pdf', mimeType: 'application/pdf' } })],
			{},
			'Input Binary Field: the file "empty.pdf" in "data" is empty: the service refuses empty files [item 0]',
		],
		[
			'the file is over 50 MB',
			async () => [await storeFiles({ data: { data: Buffer.alloc(50 * MB + 1), fileName: 'huge.zip', mimeType: 'application/zip' } })],
			{},
			'Input Binary Field: the file "huge.zip" in "data" is 50.0 MB; the service takes uploads up to 50.0 MB: make it smaller, or send a link to it in a message [item 0]',
		],
	])('%s', async (_name, binaries, extra, message) => {
		const result = await run(ctx, upload('sendDocument', extra), { items: [{ chat: ctx.d.privateChatId }], binaries: await binaries() });
		expect(result.error?.message).toBe(message);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('a photo that is not an image names the file and what to use instead', async () => {
		const binaries = [await storeFiles({ data: { data: Buffer.from('%PDF-1.7'), fileName: 'report.pdf', mimeType: 'application/pdf' } })];
		const result = await run(ctx, upload('sendPhoto'), { items: [{ chat: ctx.d.privateChatId }], binaries });
		expect(result.error?.message).toBe(`Input Binary Field: the file "report.pdf" in "data" is "application/pdf", not an image: send it with Send Document instead [item 0]`);
		const asImage = await run(ctx, upload('sendPhoto', { mimeType: 'text/plain' }), { items: [{ chat: ctx.d.privateChatId }], binaries: [await storeFiles({ data: { data: PNG, fileName: 'c.png', mimeType: 'image/png' } })] });
		expect(asImage.error?.message).toBe(`MIME Type: the file "c.png" in "data" is "text/plain", not an image: send it with Send Document instead [item 0]`);
		expect(ctx.emu.calls).toHaveLength(0);
	});

	it('a MIME Type from the item that is not type/subtype is refused naming the field, the value and the item, before anything is sent', async () => {
		const binaries = await files(...[1, 2, 3, 4, 5].map((n) => ({ data: { data: Buffer.from(`rows ${n}`), fileName: `export-${n}.csv`, mimeType: 'text/csv' } })));
		const items = [
			{ chat: ctx.d.privateChatId, type: 'text/csv' },
			{ chat: ctx.d.privateChatId, type: 'text/csv\r\nX-Injected: yes' },
			{ chat: ctx.d.privateChatId, type: 'csv' },
			{ chat: ctx.d.privateChatId, type: true },
			{ chat: ctx.d.privateChatId, type: 'text/plain; charset=utf-8' },
		];
		const parameters = upload('sendDocument', { mimeType: '={{ $json.type }}' });
		const expected = [
			undefined,
			'MIME Type: "text/csv\\r\\nX-Injected: yes" is not a MIME type: write it as type/subtype, e.g. application/pdf or text/csv, or leave it empty to send the binary data\'s own ("text/csv") [item 1]',
			'MIME Type: "csv" is not a MIME type: write it as type/subtype, e.g. application/pdf or text/csv, or leave it empty to send the binary data\'s own ("text/csv") [item 2]',
			'MIME Type: "true" is not a MIME type: write it as type/subtype, e.g. application/pdf or text/csv, or leave it empty to send the binary data\'s own ("text/csv") [item 3]',
			undefined,
		];
		const stopped = await run(ctx, parameters, { items, binaries });
		expect(stopped.error?.message).toBe(expected[1]);
		expect(ctx.emu.calls).toHaveLength(0);
		const out = await runOk(ctx, parameters, { items, binaries, continueOnFail: true });
		expect(jsonOf(out).map((json) => json.error)).toEqual(expected);
		// Only the two good ones went out, each with its type as written.
		expect(ctx.emu.callsTo('sendDocument').map((call) => (call.body.document as { mimeType?: string }).mimeType)).toEqual(['text/csv', 'text/plain; charset=utf-8']);
	});

	it('with Continue On Fail the bad item gets its error, paired, and the others are sent', async () => {
		const binaries = [
			await storeFiles({ data: { data: Buffer.from('one'), fileName: 'one.txt', mimeType: 'text/plain' } }),
			await storeFiles({ other: { data: Buffer.from('two'), fileName: 'two.txt', mimeType: 'text/plain' } }),
			await storeFiles({ data: { data: Buffer.from('three'), fileName: 'three.txt', mimeType: 'text/plain' } }),
		];
		const items = [{ chat: ctx.d.privateChatId }, { chat: ctx.d.privateChatId }, { chat: ctx.d.privateChatId }];
		const out = await runOk(ctx, upload('sendDocument'), { items, binaries, continueOnFail: true });
		expect(pairingOf(out)).toEqual([0, 1, 2]);
		expect(jsonOf(out)[1].error).toBe('Input Binary Field: the item has no binary property "data"; it has "other" [item 1]');
		expect(ctx.emu.history(ctx.d.privateChatId).map((message) => (message.document as { file_name: string }).file_name)).toEqual(['one.txt', 'three.txt']);
	});
});

describe('uploads the service refuses or may have received', () => {
	it('a refusal goes to the error output, paired; the next item is still sent', async () => {
		// Claims to be an image, but is not: the node cannot tell, the service can.
		const binaries = [
			await storeFiles({ data: { data: Buffer.from('not an image'), fileName: 'fake.png', mimeType: 'image/png' } }),
			await storeFiles({ data: { data: PNG, fileName: 'real.png', mimeType: 'image/png' } }),
		];
		const items = [{ chat: ctx.d.privateChatId }, { chat: ctx.d.privateChatId }];
		const result = await run(ctx, upload('sendPhoto'), { items, binaries, onError: 'continueErrorOutput' });
		expect(pairingOf(result.errorOutput)).toEqual([0]);
		expect(String(result.errorOutput[0].json.error)).toMatch(/^Bad Request: IMAGE_PROCESS_FAILED/);
		expect(pairingOf(result.output)).toEqual([1]);
		expect(ctx.emu.history(ctx.d.privateChatId)).toHaveLength(1);
	});

	it('an upload whose connection breaks after the service took it is not sent again', async () => {
		ctx.emu.injectFault({ kind: 'drop', method: 'sendDocument', execute: true });
		const binaries = [await storeFiles({ data: { data: Buffer.from('once only'), fileName: 'once.txt', mimeType: 'text/plain' } })];
		const result = await run(ctx, upload('sendDocument'), { items: [{ chat: ctx.d.privateChatId }], binaries });
		expect(result.error?.message).toMatch(/^Could not reach the service for sendDocument/);
		expect(ctx.emu.callsTo('sendDocument')).toHaveLength(1);
		expect(ctx.emu.history(ctx.d.privateChatId)).toHaveLength(1);
	});

	it('an upload refused with a 429 is sent again after the wait, the whole file again', async () => {
		ctx.emu.injectFault({ kind: 'status', status: 429, retryAfter: 0, method: 'sendDocument' });
		const data = Buffer.alloc(300_000, 9);
		const binaries = [await storeFiles({ data: { data, fileName: 'retry.bin', mimeType: 'application/octet-stream' } })];
		await runOk(ctx, upload('sendDocument'), { items: [{ chat: ctx.d.privateChatId }], binaries });
		expect(ctx.emu.callsTo('sendDocument').map((call) => call.status)).toEqual([429, 200]);
		expect(received('sendDocument', 'document', 1)).toMatchObject({ size: data.length, sha256: sha256(data) });
	});
});
