/**
 * Uploads as the Telegram convention has them (the spec does not show uploading): the media method
 * with a multipart/form-data body, the file in the method's media field, the other parameters as
 * text fields; the answer is the sent Message, whose media carries the new file's ID.
 */
import { createHash } from 'node:crypto';

import type { DemoData, Emulator, Message } from './index';
import { methodUrl, useEmulator } from './helpers';

let emu: Emulator;
let d: DemoData;
useEmulator((started) => {
	emu = started;
	d = started.demo;
});

/** The smallest PNG header the service recognises as an image. */
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

interface Answer {
	status: number;
	body: { ok: boolean; result?: Message & Record<string, unknown>; description?: string; error_code?: number };
}

async function upload(method: string, fields: Record<string, string>, file: { field: string; data: Buffer; name: string; type: string }): Promise<Answer> {
	const form = new FormData();
	for (const [name, value] of Object.entries(fields)) form.append(name, value);
	form.append(file.field, new Blob([file.data], { type: file.type }), file.name);
	const response = await fetch(methodUrl(emu, method), { method: 'POST', body: form });
	return { status: response.status, body: (await response.json()) as Answer['body'] };
}

describe('uploads (multipart/form-data on the media methods)', () => {
	it.each([
		['sendPhoto', 'photo', PNG, 'cat.png', 'image/png'],
		['sendVideo', 'video', Buffer.from('not really a video'), 'clip.mp4', 'video/mp4'],
		['sendDocument', 'document', Buffer.from('%PDF-1.7 report'), 'report.pdf', 'application/pdf'],
		['sendVoice', 'voice', Buffer.from('OggS voice'), 'note.ogg', 'audio/ogg'],
	])('%s stores the file in "%s" as new media and answers the Message with its file_id', async (method, field, data, name, type) => {
		const keyboard = { inline_keyboard: [[{ text: 'Yes', callback_data: 'yes' }]] };
		const answer = await upload(method, { chat_id: d.privateChatId, caption: '<b>Q3</b>', parse_mode: 'HTML', reply_markup: JSON.stringify(keyboard) }, { field, data, name, type });
		expect(answer.status).toBe(200);
		const message = answer.body.result as Message & Record<string, { file_id: string; file_name?: string; mime_type?: string; file_size?: number }>;
		const media = message[field];
		expect(media.file_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
		expect(media.file_size).toBe(data.length);
		if (field === 'document' || field === 'video') expect(media.file_name).toBe(name);
		if (field !== 'photo') expect(media.mime_type).toBe(type);
		expect(message).toMatchObject({ caption: '<b>Q3</b>', reply_markup: keyboard });
		// What arrived is what was sent.
		const recorded = emu.callsTo(method)[0].body[field] as { sha256: string; size: number };
		expect(recorded).toMatchObject({ size: data.length, sha256: createHash('sha256').update(data).digest('hex') });
		// The new ID sends the same file again, without uploading it.
		const again = await fetch(methodUrl(emu, method), {
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ chat_id: d.groupChatId, [field]: media.file_id }),
		});
		const resent = (await again.json()) as { ok: boolean; result: Record<string, { file_id: string; file_size?: number }> };
		expect(resent.ok).toBe(true);
		expect(resent.result[field]).toMatchObject({ file_id: media.file_id, file_size: data.length });
	});

	it('refuses an empty file (400), a photo that is not an image (400) and a file over 50 MB (413); nothing is sent', async () => {
		const empty = await upload('sendDocument', { chat_id: d.privateChatId }, { field: 'document', data: Buffer.alloc(0), name: 'empty.txt', type: 'text/plain' });
		expect(empty).toMatchObject({ status: 400, body: { ok: false, description: 'Bad Request: file must be non-empty' } });
		const pdfAsPhoto = await upload('sendPhoto', { chat_id: d.privateChatId }, { field: 'photo', data: Buffer.from('%PDF-1.7'), name: 'report.pdf', type: 'application/pdf' });
		expect(pdfAsPhoto).toMatchObject({ status: 400, body: { ok: false, description: 'Bad Request: IMAGE_PROCESS_FAILED' } });
		const tooLarge = await upload('sendDocument', { chat_id: d.privateChatId }, { field: 'document', data: Buffer.alloc(50 * 1024 * 1024 + 1, 1), name: 'big.bin', type: 'application/octet-stream' });
		expect(tooLarge).toMatchObject({ status: 413, body: { ok: false, description: 'Request Entity Too Large' } });
		expect(emu.history(d.privateChatId)).toHaveLength(0);
	});

	it('takes a file of exactly 50 MB', async () => {
		const answer = await upload('sendDocument', { chat_id: d.privateChatId }, { field: 'document', data: Buffer.alloc(50 * 1024 * 1024, 7), name: 'limit.bin', type: 'application/octet-stream' });
		expect(answer.status).toBe(200);
		expect(emu.history(d.privateChatId)[0].document).toMatchObject({ file_name: 'limit.bin', file_size: 50 * 1024 * 1024 });
	});

	it("a file in another method's media field is refused as a request without its media", async () => {
		const answer = await upload('sendDocument', { chat_id: d.privateChatId }, { field: 'photo', data: PNG, name: 'cat.png', type: 'image/png' });
		expect(answer).toMatchObject({ status: 400, body: { ok: false } });
		expect(answer.body.description).toMatch(/there is no document in the request/);
	});
});
