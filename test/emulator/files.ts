/**
 * Files users send, and what getFile and the download path need of them. The spec shows only a
 * message's text ("other fields of a message (media, …): not shown") and no download endpoint, so
 * this follows Telegram's convention: a photo arrives as several sizes (smaller copies first, the
 * original last), `getFile` gives a `file_path` such as `photos/file_0.jpg`, and the bytes are at
 * `{base}/file/bot<token>/<file_path>`, up to 20 MB. Written from that convention and the image
 * formats' own headers; no image library (the smaller sizes are PNGs made here with node:zlib).
 */
import { createHash } from 'node:crypto';
import { deflateSync } from 'node:zlib';

import type { MediaKind } from './types';

/** Telegram's limit for files a bot downloads with getFile: 20 MB. */
export const DOWNLOAD_LIMIT_BYTES = 20 * 1024 * 1024;

/**
 * The largest file a user sends here. Telegram takes up to 2 GB from users; 64 MB is enough to test
 * the 20 MB download limit from both sides without holding gigabytes in a test process.
 */
export const USER_FILE_LIMIT_BYTES = 64 * 1024 * 1024;

/** The dimensions stated for a photo whose header cannot be read (and for the placeholder of a photo without content). */
export const UNKNOWN_PHOTO_SIZE = { width: 1280, height: 960 } as const;

/** Telegram's smaller photo sizes: the longest side fits in 90 (s), 320 (m) and 800 (x) pixels. */
export const PHOTO_SIZE_BOXES: readonly number[] = [90, 320, 800];

/** The length of the placeholder served for a non-photo file registered without content nor size. */
export const PLACEHOLDER_BYTES = 1024;

/** Where getFile puts each kind's files (Telegram's folders). */
export const FILE_FOLDERS: Record<MediaKind, string> = { photo: 'photos', video: 'videos', document: 'documents', voice: 'voice' };

// ---------- images ----------

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
	let c = n;
	for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
	return c >>> 0;
});

function crc32(data: Buffer): number {
	let crc = 0xffffffff;
	for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
	return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
	const length = Buffer.alloc(4);
	length.writeUInt32BE(data.length);
	const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
	const crc = Buffer.alloc(4);
	crc.writeUInt32BE(crc32(typed));
	return Buffer.concat([length, typed, crc]);
}

/** A valid PNG (8-bit RGB) of one colour: what the smaller sizes of a user's photo are here. */
export function solidPng(width: number, height: number, [red, green, blue]: readonly [number, number, number]): Buffer {
	const header = Buffer.alloc(13);
	header.writeUInt32BE(width, 0);
	header.writeUInt32BE(height, 4);
	header[8] = 8; // bits per channel
	header[9] = 2; // RGB
	const row = Buffer.alloc(1 + width * 3); // filter byte 0 ("none"), then the pixels
	for (let x = 0; x < width; x += 1) row.set([red, green, blue], 1 + x * 3);
	const pixels = Buffer.concat(Array.from({ length: height }, () => row));
	return Buffer.concat([
		Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
		pngChunk('IHDR', header),
		pngChunk('IDAT', deflateSync(pixels)),
		pngChunk('IEND', Buffer.alloc(0)),
	]);
}

/** The MIME type of an image the service can process (JPEG, PNG, GIF, WebP, BMP), from its first bytes. */
export function imageType(head: Buffer): string | undefined {
	const starts = (...bytes: number[]): boolean => bytes.every((byte, index) => head[index] === byte);
	if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
	if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
	if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'image/gif';
	if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'image/webp';
	if (starts(0x42, 0x4d)) return 'image/bmp';
	return undefined;
}

/** JPEG's start-of-frame markers (they carry the dimensions); C4, C8 and CC are other segments. */
const JPEG_FRAMES = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

function jpegSize(data: Buffer): { width: number; height: number } | undefined {
	let at = 2;
	while (at + 9 <= data.length) {
		if (data[at] !== 0xff) return undefined;
		const marker = data[at + 1];
		if (marker === 0xff) {
			at += 1; // fill byte
			continue;
		}
		if (JPEG_FRAMES.has(marker)) return { height: data.readUInt16BE(at + 5), width: data.readUInt16BE(at + 7) };
		if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
			at += 2; // markers without a length
			continue;
		}
		at += 2 + data.readUInt16BE(at + 2);
	}
	return undefined;
}

function webpSize(data: Buffer): { width: number; height: number } | undefined {
	const chunk = data.subarray(12, 16).toString('latin1');
	if (chunk === 'VP8X' && data.length >= 30) return { width: data.readUIntLE(24, 3) + 1, height: data.readUIntLE(27, 3) + 1 };
	if (chunk === 'VP8L' && data.length >= 25 && data[20] === 0x2f) {
		const bits = data.readUInt32LE(21);
		return { width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
	}
	if (chunk === 'VP8 ' && data.length >= 30 && data[23] === 0x9d && data[24] === 0x01 && data[25] === 0x2a) {
		return { width: data.readUInt16LE(26) & 0x3fff, height: data.readUInt16LE(28) & 0x3fff };
	}
	return undefined;
}

/** An image's width and height as its header states them; undefined when the header cannot be read. */
export function imageSize(data: Buffer): { width: number; height: number } | undefined {
	let size: { width: number; height: number } | undefined;
	switch (imageType(data)) {
		case 'image/png':
			if (data.length >= 24 && data.subarray(12, 16).toString('latin1') === 'IHDR') size = { width: data.readUInt32BE(16), height: data.readUInt32BE(20) };
			break;
		case 'image/gif':
			if (data.length >= 10) size = { width: data.readUInt16LE(6), height: data.readUInt16LE(8) };
			break;
		case 'image/bmp':
			// BITMAPINFOHEADER; a negative height means rows stored top-down.
			if (data.length >= 26) size = { width: Math.abs(data.readInt32LE(18)), height: Math.abs(data.readInt32LE(22)) };
			break;
		case 'image/webp':
			size = webpSize(data);
			break;
		case 'image/jpeg':
			size = jpegSize(data);
			break;
		default:
			break;
	}
	return size && size.width > 0 && size.height > 0 ? size : undefined;
}

/** The smaller sizes Telegram makes of a photo: one per box its longest side does not fit, scaled to fit, smallest first. */
export function smallerSizes(width: number, height: number): Array<{ width: number; height: number }> {
	const longest = Math.max(width, height);
	return PHOTO_SIZE_BOXES.filter((box) => longest > box).map((box) => ({
		width: Math.max(1, Math.round((width * box) / longest)),
		height: Math.max(1, Math.round((height * box) / longest)),
	}));
}

/** A colour of the photo's own (from its content's hash), so that its sizes look alike and other photos' differ. */
export function colourOf(sha256: string): [number, number, number] {
	const bytes = Buffer.from(sha256.slice(0, 6), 'hex');
	return [bytes[0], bytes[1], bytes[2]];
}

// ---------- names and types ----------

const TYPE_OF_EXTENSION: Record<string, string> = {
	jpg: 'image/jpeg',
	jpeg: 'image/jpeg',
	png: 'image/png',
	gif: 'image/gif',
	webp: 'image/webp',
	bmp: 'image/bmp',
	mp4: 'video/mp4',
	ogg: 'audio/ogg',
	oga: 'audio/ogg',
	mp3: 'audio/mpeg',
	m4a: 'audio/mp4',
	pdf: 'application/pdf',
	txt: 'text/plain',
	csv: 'text/csv',
	json: 'application/json',
	zip: 'application/zip',
};

const EXTENSION_OF_TYPE: Record<string, string> = {
	'image/jpeg': 'jpg',
	'image/png': 'png',
	'image/gif': 'gif',
	'image/webp': 'webp',
	'image/bmp': 'bmp',
	'video/mp4': 'mp4',
	'audio/ogg': 'oga',
	'audio/mpeg': 'mp3',
	'audio/mp4': 'm4a',
	'application/pdf': 'pdf',
	'text/plain': 'txt',
	'text/csv': 'csv',
	'application/json': 'json',
	'application/zip': 'zip',
};

/** A file name's extension, lower case; undefined for none (or one that is not plain letters and digits). */
export function extensionOf(fileName: string | undefined): string | undefined {
	return /\.([A-Za-z0-9]{1,8})$/.exec(fileName ?? '')?.[1].toLowerCase();
}

/** The MIME type a file name's extension says, for the few types Telegram's clients send most. */
export function typeOfName(fileName: string | undefined): string | undefined {
	const extension = extensionOf(fileName);
	return extension === undefined ? undefined : TYPE_OF_EXTENSION[extension];
}

/** The extension of a MIME type, for a name or path without one. */
export function extensionOfType(mimeType: string | undefined): string | undefined {
	return mimeType === undefined ? undefined : EXTENSION_OF_TYPE[mimeType.toLowerCase()];
}

/**
 * The extension of a file's path: Telegram writes Ogg voice messages as `.oga`; other files keep
 * their name's extension, else their type's; none when neither says one.
 */
export function pathExtension(kind: MediaKind, fileName: string | undefined, mimeType: string | undefined): string | undefined {
	if (kind === 'voice' && mimeType?.toLowerCase() === 'audio/ogg') return 'oga';
	return extensionOf(fileName) ?? extensionOfType(mimeType);
}

// ---------- placeholders ----------

/**
 * The content served for a file registered without it (the demo media, `addMedia` without bytes),
 * so that getFile works for every file the service knows, as on Telegram: a photo gets a PNG of
 * UNKNOWN_PHOTO_SIZE, any other file its stated size (else PLACEHOLDER_BYTES) of a repeated text line
 * naming it. The same file always gets the same bytes.
 */
export function placeholder(kind: MediaKind, fileId: string, statedSize: number | undefined): { bytes: Buffer; mimeType?: string } {
	if (kind === 'photo') {
		const colour = colourOf(createHash('sha256').update(fileId).digest('hex'));
		return { bytes: solidPng(UNKNOWN_PHOTO_SIZE.width, UNKNOWN_PHOTO_SIZE.height, colour), mimeType: 'image/png' };
	}
	const line = Buffer.from(`Service Bot emulator: placeholder content of file ${fileId}, registered without its bytes\n`);
	const size = statedSize ?? PLACEHOLDER_BYTES;
	const bytes = Buffer.alloc(size);
	for (let at = 0; at < size; at += line.length) line.copy(bytes, at, 0, Math.min(line.length, size - at));
	return { bytes };
}

// ---------- a body larger than the file ----------

/** The filler after the file's bytes in an oversized body (one chunk, sent again and again). */
const FILLER = Buffer.alloc(64 * 1024, 0x2e);

/**
 * A body of `total` bytes for a file that has fewer: the file's bytes, then filler, in chunks of at
 * most 64 KiB, made as they are asked for (a body of gigabytes is never held).
 */
export function* oversizedBody(bytes: Buffer, total: number): Generator<Buffer> {
	let left = total;
	for (let at = 0; at < bytes.length && left > 0; at += FILLER.length) {
		const chunk = bytes.subarray(at, Math.min(at + FILLER.length, at + left));
		left -= chunk.length;
		yield chunk;
	}
	while (left > 0) {
		const chunk = left >= FILLER.length ? FILLER : FILLER.subarray(0, left);
		left -= chunk.length;
		yield chunk;
	}
}
