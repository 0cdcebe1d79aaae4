/**
 * The growth harness itself: it must fail a quadratic function and pass a linear one, also one whose
 * time per character steps up once (as it does when a function's data outgrows a CPU cache).
 */
import { growth, growthVerdict } from './growth';

/** About 40 cheap steps per character, so even short texts take measurable time. */
function work(text: string, rounds: number): number {
	let hash = 0;
	for (let round = 0; round < rounds; round++) for (let index = 0; index < text.length; index++) hash = (hash * 31 + text.charCodeAt(index) + round) | 0;
	return hash;
}

const letters = (n: number): string => 'a'.repeat(n);

test('a linear function passes', async () => {
	expect(growthVerdict(await growth((text) => work(text, 40), letters))).toBe('linear');
});

test('a linear function whose time per character is four times higher from 8,192 characters on passes', async () => {
	expect(growthVerdict(await growth((text) => work(text, text.length >= 8_192 ? 160 : 40), letters))).toBe('linear');
});

test('a quadratic function fails, with the ratio and every size in the verdict', async () => {
	const quadratic = (text: string): number => {
		let hash = 0;
		for (let from = 0; from < text.length; from++) for (let index = from; index < text.length; index++) hash = (hash + text.charCodeAt(index)) | 0;
		return hash;
	};
	expect(growthVerdict(await growth(quadratic, letters))).toMatch(/^grew \d+× from n to 64n: 8 chars: /);
});
