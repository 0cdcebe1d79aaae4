/**
 * Files users send, for the tests of both triggers and Get File (not a test file itself): one of each
 * kind Telegram's messages carry, as a user's app sends it (a JPEG photo, a PDF, an Ogg voice note, an
 * MP4 video), and what the item must say of it: Telegram's convention (test/spec.ts FILES), where a
 * photo is a JPEG whose sizes the service makes, and the other kinds keep the name and type the app
 * sent. Small, distinct bytes: a test compares them whole.
 */
import { crc32, deflateSync } from 'node:zlib';

import type { IDataObject } from 'n8n-workflow';

import type { Emulator } from '../emulator';
import { FILES } from '../spec';

export type MediaKind = (typeof FILES.mediaFields)[number];

/** A JPEG's header (SOI, JFIF, a baseline frame of `width` × `height`), then `fill` bytes: what a phone sends. */
export function jpeg(width: number, height: number, fill = 7, length = 600): Buffer {
	const app0 = Buffer.from([0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00]);
	const frame = Buffer.alloc(19);
	frame.writeUInt16BE(0xffc0, 0);
	frame.writeUInt16BE(17, 2);
	frame[4] = 8;
	frame.writeUInt16BE(height, 5);
	frame.writeUInt16BE(width, 7);
	frame[9] = 3;
	return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, frame, Buffer.alloc(length, fill), Buffer.from([0xff, 0xd9])]);
}

/**
 * A real PNG (8-bit RGB, a diagonal gradient, deflated) of `width` × `height`: a photo whose bytes any
 * image reader decodes, its size stated in its IHDR header as the PNG format defines.
 */
export function png(width: number, height: number): Buffer {
	const chunk = (type: string, data: Buffer): Buffer => {
		const length = Buffer.alloc(4);
		length.writeUInt32BE(data.length);
		const crc = Buffer.alloc(4);
		crc.writeUInt32BE(crc32(Buffer.concat([Buffer.from(type, 'latin1'), data])));
		return Buffer.concat([length, Buffer.from(type, 'latin1'), data, crc]);
	};
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header.set([8, 2, 0, 0, 0], 8); // bit depth 8, colour type 2 (RGB), deflate, filter 0, no interlace
	const rows = Buffer.alloc(height * (1 + width * 3));
	for (let y = 0; y < height; y += 1) {
		const row = y * (1 + width * 3); // each row: filter byte 0 ("none"), then its pixels
		for (let x = 0; x < width; x += 1) rows.set([(x * 255) / width, (y * 255) / height, ((x + y) * 127) / (width + height)], row + 1 + x * 3);
	}
	const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
	return Buffer.concat([signature, chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}

export interface SampleFile {
	readonly kind: MediaKind;
	readonly bytes: Buffer;
	readonly fileName?: string;
	readonly mimeType?: string;
	readonly width?: number;
	readonly height?: number;
	readonly duration?: number;
	/** The MIME type the item's binary data must have (the app's, or a photo's JPEG). */
	readonly expectedMimeType: string;
	/** The extension of the service's path for the file (Telegram's: a photo's .jpg, a voice note's .oga, else the name's). */
	readonly pathExtension: string;
}

export const SAMPLES: Record<MediaKind, SampleFile> = {
	photo: { kind: 'photo', bytes: jpeg(1280, 960), expectedMimeType: FILES.photoMimeType, pathExtension: 'jpg' },
	document: {
		kind: 'document',
		bytes: Buffer.from('%PDF-1.7\n% receipt 2026-11-30, total 42.00 EUR\n%%EOF\n'),
		fileName: 'receipt-42.pdf',
		mimeType: 'application/pdf',
		expectedMimeType: 'application/pdf',
		pathExtension: 'pdf',
	},
	voice: { kind: 'voice', bytes: Buffer.concat([Buffer.from('OggS'), Buffer.alloc(900, 5)]), mimeType: 'audio/ogg', duration: 3, expectedMimeType: 'audio/ogg', pathExtension: 'oga' },
	video: {
		kind: 'video',
		bytes: Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(2000, 9)]),
		fileName: 'clip.mp4',
		mimeType: 'video/mp4',
		width: 640,
		height: 360,
		duration: 5,
		expectedMimeType: 'video/mp4',
		pathExtension: 'mp4',
	},
};

/** The demo user sends `sample` (with `caption`) to `chatId`; the update the service queued. */
export async function userSendsFile(emu: Emulator, sample: SampleFile, caption?: string, chatId = emu.demo.privateChatId): Promise<IDataObject> {
	const { kind, bytes, fileName, mimeType, width, height, duration } = sample;
	return (await emu.userSends({ chatId, userId: emu.demo.userId, caption, media: { kind, bytes, fileName, mimeType, width, height, duration } })) as unknown as IDataObject;
}

/** The file a message carries (a photo's sizes: the one at `size`, default the largest, which Telegram lists last). */
export function fileOfMessage(update: IDataObject, size: 'largest' | 'smallest' | number = 'largest'): IDataObject {
	const message = update.message as IDataObject;
	const kind = FILES.mediaFields.find((field) => message[field] !== undefined);
	if (kind === undefined) throw new Error('the message carries no file');
	const media = message[kind];
	if (!Array.isArray(media)) return media as IDataObject;
	const sizes = media as IDataObject[];
	return size === 'largest' ? sizes[sizes.length - 1] : size === 'smallest' ? sizes[0] : sizes[size];
}

/** The bytes the service serves for a file: getFile, then its path (Telegram's download), asked directly. */
export async function serviceBytes(emu: Emulator, fileId: string, token = emu.demo.token): Promise<Buffer> {
	const answer = (await (
		await fetch(`${emu.baseUrl}/bot${token}/getFile`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file_id: fileId }) })
	).json()) as { ok: boolean; result?: { file_path: string } };
	if (!answer.ok || !answer.result) throw new Error(`getFile failed: ${JSON.stringify(answer)}`);
	const response = await fetch(`${emu.baseUrl}/file/bot${token}/${answer.result.file_path}`);
	return Buffer.from(await response.arrayBuffer());
}
