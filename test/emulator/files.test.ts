/**
 * Files users send, getFile and the download path, as Telegram has them (the spec shows only a
 * message's text and no download): a photo arrives as its sizes, smallest first, the original last;
 * getFile gives `{file_id, file_unique_id, file_size, file_path}` for any file the service knows, up
 * to 20 MB; `{base}/file/bot<token>/<file_path>` serves the bytes. Fixtures (images) are made here.
 */
import { createHash } from 'node:crypto';
import { crc32, deflateSync, inflateSync } from 'node:zlib';

import type { DemoData, Emulator, FileInfo, Message, PhotoSize, Update } from './index';
import { call, fails, methodUrl, ok, useEmulator } from './helpers';
import { MEDIA_BYTES_KEPT_MAX } from './state';

let emu: Emulator;
let d: DemoData;
useEmulator((started) => {
	emu = started;
	d = started.demo;
});

const MB = 1024 * 1024;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const NOT_FOUND = { ok: false, error_code: 404, description: 'Not Found' };

// ---------- fixtures ----------

function chunk(type: string, data: Buffer): Buffer {
	const length = Buffer.alloc(4);
	length.writeUInt32BE(data.length);
	const checksum = Buffer.alloc(4);
	checksum.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type), data])));
	return Buffer.concat([length, Buffer.from(type), data, checksum]);
}

/** A grey RGB PNG of these dimensions. */
function png(width: number, height: number): Buffer {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header.set([8, 2, 0, 0, 0], 8);
	const rows = Buffer.alloc(height * (1 + width * 3), 0x80);
	for (let y = 0; y < height; y += 1) rows[y * (1 + width * 3)] = 0;
	return Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

/** What a PNG says it is, after checking it is one: every chunk's CRC right, its pixels as long as its header says. */
function readPng(data: Buffer): { width: number; height: number } {
	expect(data.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
	let at = 8;
	let width = 0;
	let height = 0;
	const pixels: Buffer[] = [];
	while (at < data.length) {
		const length = data.readUInt32BE(at);
		const type = data.subarray(at + 4, at + 8).toString('latin1');
		const content = data.subarray(at + 8, at + 8 + length);
		expect(data.readUInt32BE(at + 8 + length)).toBe(crc32(data.subarray(at + 4, at + 8 + length)));
		if (type === 'IHDR') {
			width = content.readUInt32BE(0);
			height = content.readUInt32BE(4);
			expect([content[8], content[9]]).toEqual([8, 2]); // 8-bit RGB
		}
		if (type === 'IDAT') pixels.push(content);
		at += 12 + length;
	}
	expect(inflateSync(Buffer.concat(pixels)).length).toBe(height * (1 + width * 3));
	return { width, height };
}

/** The start of a baseline JPEG: SOI, a JFIF APP0 segment, then the frame header with the dimensions. */
function jpegHeader(width: number, height: number): Buffer {
	const app0 = Buffer.from('ffe000104a46494600010100000100010000', 'hex');
	const frame = Buffer.from('ffc0001108000000000301220002110103110100', 'hex');
	frame.writeUInt16BE(height, 5);
	frame.writeUInt16BE(width, 7);
	return Buffer.concat([Buffer.from('ffd8', 'hex'), app0, frame, Buffer.alloc(64, 0x11), Buffer.from('ffd9', 'hex')]);
}

const sha = (data: Buffer): string => createHash('sha256').update(data).digest('hex');

// ---------- helpers ----------

async function getFile(fileId: string, token = d.token): Promise<FileInfo> {
	return ok<FileInfo>(emu, 'getFile', { file_id: fileId }, { token });
}

/** GET {base}/file/bot<token>/<path>, the token as clients put it: as it is. */
async function download(path: string, token = d.token): Promise<{ status: number; type: string | null; length: string | null; bytes: Buffer }> {
	const response = await fetch(`${emu.baseUrl}/file/bot${token}/${path}`);
	return { status: response.status, type: response.headers.get('content-type'), length: response.headers.get('content-length'), bytes: Buffer.from(await response.arrayBuffer()) };
}

function userSendsFile(media: Parameters<Emulator['userSends']>[0]['media'], caption?: string): Promise<Update> {
	return emu.userSends({ chatId: d.privateChatId, userId: d.userId, media, caption });
}

function messageOf(update: Update): Message {
	if (!update.message) throw new Error(`no message in ${JSON.stringify(update)}`);
	return update.message;
}

function sizesOf(message: Message): PhotoSize[] {
	if (!Array.isArray(message.photo)) throw new Error(`photo is not an array of sizes: ${JSON.stringify(message.photo)}`);
	return message.photo;
}

// ---------- files users send ----------

describe('a user sends a photo', () => {
	it('arrives as an array of sizes, smallest first, the original last, each {file_id, file_unique_id, width, height, file_size}, with the caption', async () => {
		const original = png(1600, 1200);
		const message = messageOf(await userSendsFile({ kind: 'photo', bytes: original, fileName: 'cat.png' }, 'Is this damaged?'));
		expect(message.caption).toBe('Is this damaged?');
		expect(message.text).toBeUndefined();
		const sizes = sizesOf(message);
		expect(sizes.map(({ width, height }) => [width, height])).toEqual([
			[90, 68],
			[320, 240],
			[800, 600],
			[1600, 1200],
		]);
		for (const size of sizes) {
			expect(Object.keys(size).sort()).toEqual(['file_id', 'file_size', 'file_unique_id', 'height', 'width']);
			expect(size.file_id).toMatch(UUID);
		}
		expect(new Set(sizes.map((size) => size.file_id)).size).toBe(4);
		expect(new Set(sizes.map((size) => size.file_unique_id)).size).toBe(4);
		expect(sizes[3].file_size).toBe(original.length);
		// The bot that is a member got it; the chat shows it.
		expect(emu.pendingUpdates().at(-1)?.message?.photo).toEqual(sizes);
		expect(emu.history(d.privateChatId).at(-1)).toMatchObject({ photo: sizes, caption: 'Is this damaged?', sent_by_bot: false, media_url: `/_emulator/media/${sizes[3].file_id}` });
	});

	it('every size is a file of its own: getFile gives its path, the download is a PNG of the stated dimensions, the original byte for byte', async () => {
		const original = png(1600, 1200);
		const sizes = sizesOf(messageOf(await userSendsFile({ kind: 'photo', bytes: original })));
		const paths = new Set<string>();
		for (const size of sizes) {
			const file = await getFile(size.file_id);
			expect(file).toEqual({ file_id: size.file_id, file_unique_id: size.file_unique_id, file_size: size.file_size, file_path: expect.stringMatching(/^photos\/file_\d+\.png$/) });
			paths.add(file.file_path);
			const got = await download(file.file_path);
			expect(got).toMatchObject({ status: 200, type: 'image/png', length: String(size.file_size) });
			expect(readPng(got.bytes)).toEqual({ width: size.width, height: size.height });
		}
		expect(paths.size).toBe(4);
		const largest = await download((await getFile(sizes[3].file_id)).file_path);
		expect(sha(largest.bytes)).toBe(sha(original));
	});

	it('reads the dimensions of a JPEG, keeps only the sizes smaller than the photo, and states 1280×960 for an image it cannot read', async () => {
		const jpeg = jpegHeader(100, 50);
		const small = sizesOf(messageOf(await userSendsFile({ kind: 'photo', bytes: jpeg, fileName: 'small.jpg' })));
		expect(small.map(({ width, height }) => [width, height])).toEqual([
			[90, 45],
			[100, 50],
		]);
		const file = await getFile(small[1].file_id);
		expect(file.file_path).toMatch(/^photos\/file_\d+\.jpg$/);
		expect(await download(file.file_path)).toMatchObject({ status: 200, type: 'image/jpeg', bytes: jpeg });

		const tiny = sizesOf(messageOf(await userSendsFile({ kind: 'photo', bytes: png(60, 40) })));
		expect(tiny.map(({ width, height }) => [width, height])).toEqual([[60, 40]]);

		const unreadable = sizesOf(messageOf(await userSendsFile({ kind: 'photo', bytes: Buffer.from('not an image at all') })));
		expect(unreadable.at(-1)).toMatchObject({ width: 1280, height: 960 });
		expect(unreadable.map(({ width }) => width)).toEqual([90, 320, 800, 1280]);

		const stated = sizesOf(messageOf(await userSendsFile({ kind: 'photo', bytes: png(10, 10), width: 400, height: 300 })));
		expect(stated.map(({ width, height }) => [width, height])).toEqual([
			[90, 68],
			[320, 240],
			[400, 300],
		]);
	});

	it('can be sent back by the bot by its file_id (a UUID, as the spec\'s media are)', async () => {
		const sizes = sizesOf(messageOf(await userSendsFile({ kind: 'photo', bytes: png(400, 300) })));
		const sent = await ok<Message>(emu, 'sendPhoto', { chat_id: d.groupChatId, photo: sizes.at(-1)?.file_id });
		expect(sent.photo).toMatchObject({ file_id: sizes.at(-1)?.file_id, file_unique_id: sizes.at(-1)?.file_unique_id });
	});
});

describe('a user sends a document, a voice message, a video', () => {
	it('a document: {file_id, file_unique_id, file_name, mime_type, file_size}, getFile path documents/…, downloaded byte for byte with its type', async () => {
		const pdf = Buffer.from('%PDF-1.7\nthe quarterly report\n%%EOF\n');
		const message = messageOf(await userSendsFile({ kind: 'document', bytes: pdf, fileName: 'report.pdf', mimeType: 'application/pdf' }, 'Q3'));
		expect(message.caption).toBe('Q3');
		const document = message.document;
		expect(document).toEqual({ file_id: expect.stringMatching(UUID), file_unique_id: expect.any(String), file_name: 'report.pdf', mime_type: 'application/pdf', file_size: pdf.length });
		const file = await getFile(document?.file_id ?? '');
		expect(file).toEqual({ file_id: document?.file_id, file_unique_id: document?.file_unique_id, file_size: pdf.length, file_path: expect.stringMatching(/^documents\/file_\d+\.pdf$/) });
		expect(await download(file.file_path)).toEqual({ status: 200, type: 'application/pdf', length: String(pdf.length), bytes: pdf });
	});

	it('a document without a name or type gets Telegram-like ones; the type follows the name when only the name is given', async () => {
		const bare = messageOf(await userSendsFile({ kind: 'document', bytes: Buffer.from([1, 2, 3]) })).document;
		expect(bare).toMatchObject({ file_name: 'document.bin', mime_type: 'application/octet-stream' });
		const named = messageOf(await userSendsFile({ kind: 'document', bytes: Buffer.from('a,b\n1,2\n'), fileName: 'table.csv' })).document;
		expect(named).toMatchObject({ file_name: 'table.csv', mime_type: 'text/csv' });
		const file = await getFile(named?.file_id ?? '');
		expect(file.file_path).toMatch(/^documents\/file_\d+\.csv$/);
		expect((await download(file.file_path)).type).toBe('text/csv');
	});

	it('a voice message: {file_id, file_unique_id, duration, mime_type, file_size}, getFile path voice/….oga', async () => {
		const ogg = Buffer.concat([Buffer.from('OggS'), Buffer.alloc(500, 7)]);
		const voice = messageOf(await userSendsFile({ kind: 'voice', bytes: ogg, mimeType: 'audio/ogg', duration: 3 })).voice;
		expect(voice).toEqual({ file_id: expect.stringMatching(UUID), file_unique_id: expect.any(String), duration: 3, mime_type: 'audio/ogg', file_size: ogg.length });
		const file = await getFile(voice?.file_id ?? '');
		expect(file.file_path).toMatch(/^voice\/file_\d+\.oga$/);
		expect(await download(file.file_path)).toEqual({ status: 200, type: 'audio/ogg', length: String(ogg.length), bytes: ogg });
	});

	it('a video: {file_id, file_unique_id, width, height, duration, file_name, mime_type, file_size}, getFile path videos/….mp4', async () => {
		const mp4 = Buffer.concat([Buffer.from('\0\0\0\x18ftypmp42'), Buffer.alloc(300, 9)]);
		const video = messageOf(await userSendsFile({ kind: 'video', bytes: mp4, fileName: 'clip.mp4', width: 640, height: 360, duration: 12 }, 'the clip')).video;
		expect(video).toEqual({
			file_id: expect.stringMatching(UUID),
			file_unique_id: expect.any(String),
			width: 640,
			height: 360,
			duration: 12,
			file_name: 'clip.mp4',
			mime_type: 'video/mp4',
			file_size: mp4.length,
		});
		const file = await getFile(video?.file_id ?? '');
		expect(file.file_path).toMatch(/^videos\/file_\d+\.mp4$/);
		expect(await download(file.file_path)).toEqual({ status: 200, type: 'video/mp4', length: String(mp4.length), bytes: mp4 });
	});

	it('a video or voice message without stated dimensions or duration gets 1280×720 and 1 second', async () => {
		const video = messageOf(await userSendsFile({ kind: 'video', bytes: Buffer.from('video') })).video;
		expect(video).toMatchObject({ width: 1280, height: 720, duration: 1, mime_type: 'video/mp4' });
		const voice = messageOf(await userSendsFile({ kind: 'voice', bytes: Buffer.from('voice') })).voice;
		expect(voice).toMatchObject({ duration: 1, mime_type: 'audio/ogg' });
		expect(voice?.file_name).toBeUndefined();
	});

	it('refuses a message with both text and media, a caption without media, empty content and a file over 64 MB', async () => {
		const base = { chatId: d.privateChatId, userId: d.userId };
		await expect(emu.userSends({ ...base, text: 'hi', media: { kind: 'document', bytes: Buffer.from('x') } })).rejects.toThrow(/text, or media with an optional caption/);
		await expect(emu.userSends({ ...base, caption: 'no file' })).rejects.toThrow(/text must be a non-empty string/);
		await expect(emu.userSends({ ...base, media: { kind: 'document', bytes: Buffer.alloc(0) } })).rejects.toThrow(/non-empty bytes/);
		await expect(emu.userSends({ ...base, media: { kind: 'document', bytes: Buffer.alloc(64 * MB + 1) } })).rejects.toThrow(/at most 67108864 bytes/);
		expect(emu.history(d.privateChatId)).toEqual([]);
	});
});

describe('the control API: POST /_emulator/messages with media', () => {
	const post = (body: unknown): Promise<Response> =>
		fetch(`${emu.baseUrl}/_emulator/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

	it('takes {media: {kind, contentBase64, fileName?, mimeType?, width?, height?, duration?}, caption} and answers the Update', async () => {
		const image = png(640, 480);
		const response = await post({ chatId: d.privateChatId, userId: d.userId, caption: 'look', media: { kind: 'photo', contentBase64: image.toString('base64'), fileName: 'look.png' } });
		expect(response.status).toBe(200);
		const update = (await response.json()) as Update;
		const sizes = sizesOf(messageOf(update));
		expect(sizes.map(({ width }) => width)).toEqual([90, 320, 640]);
		expect(update.message?.caption).toBe('look');
		expect((await download((await getFile(sizes[2].file_id)).file_path)).bytes.equals(image)).toBe(true);

		const voice = await post({ chatId: d.privateChatId, userId: d.userId, media: { kind: 'voice', contentBase64: Buffer.from('OggS').toString('base64'), duration: 4 } });
		expect(((await voice.json()) as Update).message?.voice).toMatchObject({ duration: 4, mime_type: 'audio/ogg', file_size: 4 });
	});

	it('answers 400 {error} for media without content, with text, or with a wrong kind', async () => {
		for (const body of [
			{ chatId: d.privateChatId, userId: d.userId, media: { kind: 'photo' } },
			{ chatId: d.privateChatId, userId: d.userId, text: 'and a file', media: { kind: 'document', contentBase64: 'eA==' } },
			{ chatId: d.privateChatId, userId: d.userId, media: { kind: 'sticker', contentBase64: 'eA==' } },
			{ chatId: d.privateChatId, userId: d.userId, media: { kind: 'video', contentBase64: 'eA==', width: '640', height: 360 } },
		]) {
			const response = await post(body);
			expect(response.status).toBe(400);
			expect(await response.json()).toEqual({ error: expect.any(String) });
		}
		expect(emu.history(d.privateChatId)).toEqual([]);
	});
});

// ---------- getFile ----------

describe('getFile', () => {
	it('answers GET with a query string as well as POST', async () => {
		const document = messageOf(await userSendsFile({ kind: 'document', bytes: Buffer.from('abc'), fileName: 'a.txt' })).document;
		const byPost = await getFile(document?.file_id ?? '');
		const byGet = await call<FileInfo>(emu, 'getFile', undefined, { httpMethod: 'GET', query: `file_id=${document?.file_id}` });
		expect(byGet).toEqual({ status: 200, body: { ok: true, result: byPost } });
	});

	it('gives the same path to the same file, and Telegram\'s form: <folder>/file_<n>.<extension>', async () => {
		const first = messageOf(await userSendsFile({ kind: 'document', bytes: Buffer.from('1'), fileName: 'one.txt' })).document?.file_id ?? '';
		const second = messageOf(await userSendsFile({ kind: 'document', bytes: Buffer.from('2'), fileName: 'two.txt' })).document?.file_id ?? '';
		const a = await getFile(first);
		const b = await getFile(second);
		expect(a.file_path).not.toBe(b.file_path);
		expect(await getFile(first)).toEqual(a);
		expect([a.file_path, b.file_path]).toEqual(['documents/file_0.txt', 'documents/file_1.txt']);
	});

	it('serves a file of exactly 20 MB, and refuses one byte more with 400 "file is too big"', async () => {
		const limit = Buffer.alloc(20 * MB, 0x5a);
		limit.write('first bytes', 0);
		limit.write('last bytes', limit.length - 10);
		const atLimit = messageOf(await userSendsFile({ kind: 'document', bytes: limit, fileName: 'limit.bin' })).document?.file_id ?? '';
		const file = await getFile(atLimit);
		expect(file.file_size).toBe(20 * MB);
		const got = await download(file.file_path);
		expect(got.status).toBe(200);
		expect(got.length).toBe(String(20 * MB));
		expect(sha(got.bytes)).toBe(sha(limit));

		const over = messageOf(await userSendsFile({ kind: 'document', bytes: Buffer.alloc(20 * MB + 1, 1), fileName: 'over.bin' })).document;
		expect(over?.file_size).toBe(20 * MB + 1);
		const refused = await fails(emu, 'getFile', { file_id: over?.file_id }, 400);
		expect(refused).toEqual({ ok: false, error_code: 400, description: 'Bad Request: file is too big' });
	});

	it('refuses a missing, unknown or forged file_id with 400 "invalid file_id"', async () => {
		const sizes = sizesOf(messageOf(await userSendsFile({ kind: 'photo', bytes: png(100, 100) })));
		for (const body of [
			{},
			{ file_id: '' },
			{ file_id: '11111111-1111-4111-8111-111111111111' },
			{ file_id: 'AgACAgIAAxkBAAIBZ2ZfakeTelegramFileIdAAQ' },
			{ file_id: `${sizes[0].file_id}x` },
			{ file_id: sizes[0].file_unique_id },
			{ file_id: 5 },
		]) {
			expect(await fails(emu, 'getFile', body, 400)).toEqual({ ok: false, error_code: 400, description: 'Bad Request: invalid file_id' });
		}
	});

	it('a file the bot uploaded with sendDocument: getFile by its file_id, downloaded byte for byte', async () => {
		const data = Buffer.from('uploaded by the bot\n\u00e9\u00e8\n');
		const form = new FormData();
		form.append('chat_id', d.privateChatId);
		form.append('document', new Blob([data], { type: 'text/plain' }), 'notes.txt');
		const answer = (await (await fetch(methodUrl(emu, 'sendDocument'), { method: 'POST', body: form })).json()) as { ok: boolean; result: Message };
		const fileId = answer.result.document?.file_id ?? '';
		const file = await getFile(fileId);
		expect(file).toMatchObject({ file_id: fileId, file_size: data.length, file_path: expect.stringMatching(/^documents\/file_\d+\.txt$/) });
		expect(await download(file.file_path)).toEqual({ status: 200, type: 'text/plain', length: String(data.length), bytes: data });
	});

	it('a file registered without content (the demo media): placeholder bytes, the same each time; a photo\'s is a 1280×960 PNG', async () => {
		await ok(emu, 'sendPhoto', { chat_id: d.privateChatId, photo: d.media.photo });
		const photo = await getFile(d.media.photo);
		expect(photo.file_path).toMatch(/^photos\/file_\d+\.png$/);
		const image = await download(photo.file_path);
		expect(image).toMatchObject({ status: 200, type: 'image/png', length: String(photo.file_size) });
		expect(readPng(image.bytes)).toEqual({ width: 1280, height: 960 });

		for (const kind of ['document', 'voice', 'video'] as const) {
			const file = await getFile(d.media[kind]);
			const first = await download(file.file_path);
			expect(first).toMatchObject({ status: 200, length: String(file.file_size) });
			expect(first.bytes.length).toBe(file.file_size);
			expect(first.bytes.toString()).toContain(d.media[kind]);
			expect((await download(file.file_path)).bytes.equals(first.bytes)).toBe(true);
		}
		expect((await download((await getFile(d.media.document)).file_path)).type).toBe('application/pdf');
	});

	it('a file whose content was dropped for the memory limit: 400 "file is temporarily unavailable", and its path 404', async () => {
		const small = emu.addMedia({ kind: 'document', fileName: 'small.bin', bytes: Buffer.alloc(10, 4) }).mediaId;
		const { file_path: path } = await getFile(small);
		emu.addMedia({ kind: 'document', fileName: 'large.bin', bytes: Buffer.alloc(MEDIA_BYTES_KEPT_MAX, 5) });
		expect(await fails(emu, 'getFile', { file_id: small }, 400)).toEqual({ ok: false, error_code: 400, description: 'Bad Request: file is temporarily unavailable' });
		expect(await download(path)).toMatchObject({ status: 404 });
	});
});

// ---------- the download path ----------

describe('GET {base}/file/bot<token>/<file_path>', () => {
	async function knownPath(): Promise<string> {
		const document = messageOf(await userSendsFile({ kind: 'document', bytes: Buffer.from('secret report'), fileName: 'r.txt' })).document;
		return (await getFile(document?.file_id ?? '')).file_path;
	}

	it('answers 404 with Telegram\'s JSON for a wrong token, an old token, another bot\'s token and an unknown path', async () => {
		const path = await knownPath();
		const expectNotFound = async (got: Promise<{ status: number; type: string | null; bytes: Buffer }>): Promise<void> => {
			const { status, type, bytes } = await got;
			expect({ status, type, body: JSON.parse(bytes.toString()) as unknown }).toEqual({ status: 404, type: 'application/json', body: NOT_FOUND });
		};
		await expectNotFound(download(path, '7000000001:wrong'));
		await expectNotFound(download(path, ''));
		await expectNotFound(download('documents/file_999.txt'));
		await expectNotFound(download(''));
		// Paths are the bot's own, as on Telegram: another bot's token does not open them.
		emu.addBot({ token: '7000000002:other' });
		await expectNotFound(download(path, '7000000002:other'));
		// After a new token, the old one opens nothing; the new one opens the path.
		emu.changeToken(d.token, '7000000001:renewed');
		await expectNotFound(download(path, d.token));
		expect((await download(path, '7000000001:renewed')).bytes.toString()).toBe('secret report');
	});

	it('is recorded as a call of method "file" with its path, without the token', async () => {
		const path = await knownPath();
		await download(path);
		await download('photos/file_77.jpg');
		const recorded = emu.callsTo('file');
		expect(recorded).toEqual([
			expect.objectContaining({ method: 'file', httpMethod: 'GET', token: '', botId: d.botId, body: { file_path: path }, status: 200, response: { file_size: 13, mime_type: 'text/plain' } }),
			expect.objectContaining({ method: 'file', token: '', body: { file_path: 'photos/file_77.jpg' }, status: 404, response: NOT_FOUND }),
		]);
		const overHttp = (await (await fetch(`${emu.baseUrl}/_emulator/calls?method=file`)).json()) as unknown[];
		for (const text of [JSON.stringify(recorded), JSON.stringify(overHttp)]) {
			expect(text).not.toContain(d.token);
			expect(text).not.toContain(encodeURIComponent(d.token));
			expect(text).not.toContain(d.token.split(':')[1]);
		}
	});

	it('faults of method "file": a 502, then the file; a delay; a connection dropped; a body cut short', async () => {
		const path = await knownPath();
		emu.injectFault({ kind: 'status', status: 502, method: 'file' });
		const failed = await download(path);
		expect(failed.status).toBe(502);
		expect(JSON.parse(failed.bytes.toString())).toEqual({ ok: false, error_code: 502, description: 'Bad Gateway' });
		expect((await download(path)).bytes.toString()).toBe('secret report');
		// Method calls are not hit by a download's fault.
		emu.injectFault({ kind: 'status', status: 500, method: 'file' });
		await ok(emu, 'getMyName', {});
		expect((await download(path)).status).toBe(500);

		emu.injectFault({ kind: 'delay', delayMs: 200, method: 'file' });
		const started = Date.now();
		expect((await download(path)).bytes.toString()).toBe('secret report');
		expect(Date.now() - started).toBeGreaterThanOrEqual(190);

		emu.injectFault({ kind: 'drop', method: 'file' });
		await expect(download(path)).rejects.toThrow();

		emu.injectFault({ kind: 'reset', method: 'file' });
		const cut = await fetch(`${emu.baseUrl}/file/bot${d.token}/${path}`);
		expect(cut.status).toBe(200);
		expect(cut.headers.get('content-length')).toBe('13');
		await expect(cut.arrayBuffer()).rejects.toThrow();

		expect(emu.callsTo('file').map((recorded) => recorded.status)).toEqual([502, 200, 500, 200, 0, 200]);
	});

	it("an 'oversize' fault sends more than the file, chunked without a Content-Length, and stops when the client closes", async () => {
		const path = await knownPath();
		// Method calls do not take it, even without a method named.
		emu.injectFault({ kind: 'oversize', bodyBytes: 100_000 });
		await ok(emu, 'getMyName', {});
		const whole = await fetch(`${emu.baseUrl}/file/bot${d.token}/${path}`);
		expect(whole.headers.get('content-length')).toBeNull();
		expect(whole.headers.get('transfer-encoding')).toBe('chunked');
		const body = Buffer.from(await whole.arrayBuffer());
		expect(body.length).toBe(100_000);
		expect(body.subarray(0, 13).toString()).toBe('secret report');
		expect(emu.callsTo('file')[0]).toMatchObject({ status: 200, response: { file_size: 100_000, mime_type: 'text/plain' } });
		expect(emu.callsTo('getMyName')[0]).toMatchObject({ status: 200, response: { ok: true, result: { name: expect.any(String) as unknown } } });

		// 1 GB offered, the client reads one chunk and leaves: the emulator stops writing.
		emu.injectFault({ kind: 'oversize', method: 'file', bodyBytes: 1024 ** 3 });
		const left = await fetch(`${emu.baseUrl}/file/bot${d.token}/${path}`);
		const reader = left.body!.getReader();
		await reader.read();
		await reader.cancel();
		const sent = (): number => (emu.callsTo('file')[1].response as { file_size: number }).file_size;
		// Written as the client reads: once it left, the count stops (socket buffers at most beyond what it read).
		let last = -1;
		while (sent() !== last) {
			last = sent();
			await new Promise((resolve) => setTimeout(resolve, 20));
		}
		expect(last).toBeLessThan(16 * MB);
	});

	it("a 'hang' fault holds the download until the client gives up", async () => {
		const path = await knownPath();
		emu.injectFault({ kind: 'hang', method: 'file' });
		const gaveUp = new AbortController();
		const held = fetch(`${emu.baseUrl}/file/bot${d.token}/${path}`, { signal: gaveUp.signal });
		while (emu.callsTo('file').length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
		expect((await download(path)).status).toBe(200);
		gaveUp.abort();
		await expect(held).rejects.toThrow();
		expect(emu.callsTo('file').map((recorded) => recorded.status)).toEqual([0, 200]);
	});

	it('the fault\'s when() is asked with the token, which the record does not keep', async () => {
		const path = await knownPath();
		const seen: string[] = [];
		emu.injectFault({
			kind: 'status',
			status: 503,
			method: 'file',
			when: (faulted) => {
				seen.push(faulted.token);
				return true;
			},
		});
		expect((await download(path)).status).toBe(503);
		expect(seen).toEqual([d.token]);
		expect(emu.callsTo('file')[0].token).toBe('');
	});
});
