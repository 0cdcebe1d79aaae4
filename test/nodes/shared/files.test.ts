/**
 * The name and MIME type a downloaded file gets, on their own: never from the download's URL, which
 * holds the token.
 */
import { fileNameOf, mimeTypeOf } from '../../../nodes/shared/files';
import { FILES } from '../../spec';

describe('the name and MIME type of a downloaded file', () => {
	const photo = { kind: 'photo' as const, fileId: 'F', fileUniqueId: 'AgADx1' };

	test("the sender's name, without folders (n8n would keep them as the file's directory) or control characters", () => {
		expect(fileNameOf({ fileId: 'F', fileName: 'Q3 report.pdf' }, {})).toBe('Q3 report.pdf');
		expect(fileNameOf({ fileId: 'F', fileName: '../../etc/passwd' }, {})).toBe('passwd');
		expect(fileNameOf({ fileId: 'F', fileName: 'C:\\Users\\me\\scan\u0000.png' }, {})).toBe('scan.png');
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
