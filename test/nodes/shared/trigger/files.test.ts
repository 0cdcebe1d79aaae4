/**
 * Files users send, the triggers' shared pieces on their own: reading a message's file tolerantly
 * (Telegram's shapes, test/spec.ts FILES), the photo size chosen, the handy fields.
 */
import { fileFields, fileOfUpdate } from '../../../../nodes/shared/trigger/files';
import { parseUpdate, type ReceivedUpdate } from '../../../../nodes/shared/trigger/update';
import { FILES } from '../../../spec';

const size = (id: string, width: number, height: number, bytes: number) => ({ file_id: id, file_unique_id: `u-${id}`, width, height, file_size: bytes });

/** Telegram's four sizes of a photo, smallest first (90, 320 and 800 px boxes, then the photo). */
const PHOTO = [size('s', 90, 68, 1_200), size('m', 320, 240, 14_000), size('x', 800, 600, 61_000), size('y', 1280, 960, 120_000)];

function updateWith(message: Record<string, unknown>): ReceivedUpdate {
	const parsed = parseUpdate({ update_id: 1, message: { message_id: 1, chat: { id: 'C' }, from: { id: 'U' }, ...message } });
	if (!parsed.ok) throw new Error(parsed.reason);
	return parsed.update;
}

describe("a message's file, read as Telegram sends it", () => {
	test.each(FILES.mediaFields.filter((field) => field !== 'photo'))('a %s: its one file, with the name and type the message gives', (kind) => {
		const update = updateWith({ [kind]: { file_id: 'F', file_unique_id: 'UF', file_name: 'a.bin', mime_type: 'application/x-test', file_size: 10, duration: 2 } });
		expect(fileOfUpdate(update, 'largest')).toEqual({ kind, fileId: 'F', fileUniqueId: 'UF', fileName: 'a.bin', mimeType: 'application/x-test', fileSize: 10, duration: 2 });
	});

	test.each([
		['largest', 'y'],
		// The middle of four: of an even number, the smaller of the two middle ones.
		['medium', 'm'],
		['smallest', 's'],
	] as const)('a photo, Photo Size %s: the %s size', (photoSize, id) => {
		expect(fileOfUpdate(updateWith({ photo: PHOTO }), photoSize)).toMatchObject({ kind: 'photo', fileId: id });
		// Listed in another order by a service, the sizes are still told apart by their pixels.
		expect(fileOfUpdate(updateWith({ photo: [...PHOTO].reverse() }), photoSize)).toMatchObject({ fileId: id });
	});

	test('medium of three sizes is the middle one; of one, that one', () => {
		expect(fileOfUpdate(updateWith({ photo: PHOTO.slice(0, 3) }), 'medium')).toMatchObject({ fileId: 'm' });
		expect(fileOfUpdate(updateWith({ photo: PHOTO.slice(0, 1) }), 'medium')).toMatchObject({ fileId: 's' });
	});

	test('tolerant: sizes without a file_id are skipped, a media field of another shape reads as no file, the update still runs', () => {
		expect(fileOfUpdate(updateWith({ photo: ['x', null, { width: 5 }, PHOTO[1]] }), 'largest')).toMatchObject({ fileId: 'm' });
		for (const odd of [{ photo: 'AgAD' }, { photo: [] }, { document: 'doc' }, { voice: { file_id: '' } }, { video: { file_id: 7 } }, { document: { file_id: 'D', file_size: 'big' } }]) {
			const update = updateWith({ ...odd, caption: 'still here' });
			expect(update.text).toBe('still here');
			const file = fileOfUpdate(update, 'largest');
			if (file) expect(file).toEqual({ kind: 'document', fileId: 'D', fileUniqueId: undefined, fileName: undefined, mimeType: undefined, fileSize: undefined });
		}
	});

	test('a click on a message with a photo carries no file: the click is not the message', () => {
		const parsed = parseUpdate({ update_id: 2, callback_query: { id: 'q', from: { id: 'U' }, data: 'd', message: { message_id: 4, chat: { id: 'C' }, photo: PHOTO } } });
		expect(parsed.ok && parsed.update.media).toBeUndefined();
	});

	test('the handy fields: what arrived, each null without a file', () => {
		expect(fileFields(fileOfUpdate(updateWith({ photo: PHOTO }), 'largest'))).toEqual({
			file_summary: 'photo, 1280×960, 117.2 KB',
			file_kind: 'photo',
			file_id: 'y',
			file_name: null,
			mime_type: null,
			file_size: 120_000,
			file_width: 1280,
			file_height: 960,
			file_duration: null,
		});
		expect(fileFields(undefined)).toEqual({
			file_summary: null,
			file_kind: null,
			file_id: null,
			file_name: null,
			mime_type: null,
			file_size: null,
			file_width: null,
			file_height: null,
			file_duration: null,
		});
	});

	test.each([
		['largest', 1280, 960],
		['medium', 320, 240],
		['smallest', 90, 68],
	] as const)('a photo, Photo Size %s: file_width and file_height are that size\'s (%d × %d)', (photoSize, width, height) => {
		expect(fileFields(fileOfUpdate(updateWith({ photo: PHOTO }), photoSize))).toMatchObject({ file_width: width, file_height: height });
	});

	test.each([
		['a photo (the size described)', { photo: [size('s', 90, 68, 1_200), size('b', 1600, 1000, 763_085)] }, 'photo, 1600×1000, 745.2 KB'],
		['a document with its name', { document: { file_id: 'D', file_name: 'report.pdf', mime_type: 'application/pdf', file_size: 12_595 } }, 'document report.pdf, 12.3 KB'],
		['a small document', { document: { file_id: 'D', file_name: 'a.txt', file_size: 50 } }, 'document a.txt, 50 bytes'],
		['a document of one byte', { document: { file_id: 'D', file_name: 'one', file_size: 1 } }, 'document one, 1 byte'],
		['a voice note', { voice: { file_id: 'O', duration: 7, file_size: 10_035 } }, 'voice note, 0:07, 9.8 KB'],
		['a video with its name', { video: { file_id: 'V', file_name: 'clip.mp4', width: 1280, height: 720, duration: 72, file_size: 2_202_010 } }, 'video clip.mp4, 1280×720, 1:12, 2.1 MB'],
		['a video of over an hour', { video: { file_id: 'V', width: 640, height: 360, duration: 3_723 } }, 'video, 640×360, 1:02:03'],
		['a document whose message states no size', { document: { file_id: 'D' } }, 'document'],
	])('file_summary says what arrived in words: %s', (_what, message, summary) => {
		expect(fileFields(fileOfUpdate(updateWith(message), 'largest')).file_summary).toBe(summary);
	});

	test("a video's dimensions and duration, a voice note's duration (seconds, as Telegram sends them)", () => {
		const video = { file_id: 'V', width: 1920, height: 1080, duration: 12, mime_type: 'video/mp4', file_size: 9_000 };
		expect(fileFields(fileOfUpdate(updateWith({ video }), 'largest'))).toMatchObject({ file_kind: 'video', file_width: 1920, file_height: 1080, file_duration: 12 });
		const voice = { file_id: 'O', duration: 3, mime_type: 'audio/ogg', file_size: 4_000 };
		expect(fileFields(fileOfUpdate(updateWith({ voice }), 'largest'))).toMatchObject({ file_kind: 'voice', file_width: null, file_height: null, file_duration: 3 });
		// A duration of another shape reads as none; the file still arrives.
		expect(fileFields(fileOfUpdate(updateWith({ voice: { ...voice, duration: 'long' } }), 'largest'))).toMatchObject({ file_id: 'O', file_duration: null });
	});
});
