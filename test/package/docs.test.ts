/**
 * The documentation stays true, as the map test keeps the code's map true. The rules it checks:
 *
 * - The README is a door: at most 320 lines, the starter's sections in the starter's order, the two
 *   set-up commands and the first bot on its first screen (its first 60 lines).
 * - Links resolve. In every Markdown file of the repository (README.md, CHANGELOG.md, .github/,
 *   docs/, the READMEs under test/) a relative link names a file or folder that exists, and its
 *   anchor a heading of that file as GitHub slugs it; a link to this repository on GitHub
 *   (`https://github.com/<repository>/blob/main/<path>`, `/tree/main/<path>`, or an image at
 *   `https://raw.githubusercontent.com/<repository>/main/<path>`) likewise names a file of this checkout.
 * - The nodes' documentation links (`documentationUrl`, the codex files' URLs), which n8n's editor
 *   opens, name headings of the README on the repository's home page.
 * - Links work on the npm page: npm shows the README without the repository's files, so the README
 *   links a repository file only absolutely (the forms above, <repository> being package.json's
 *   repository); its only relative links are anchors of its own headings. Inside docs/ and
 *   .github/, which npm never shows, relative links are the rule.
 * - Every page under docs/ can be found from the README: the feature pages are linked from the
 *   README directly, and the index docs/README.md (linked from the README) links every page,
 *   the design notes under docs/design/ included.
 * - Names of the editor are in bold, and only they: in the README and the user pages of docs/ (not
 *   the design notes), a **bold** phrase is something the nodes' panels show, a node, parameter,
 *   option, option value, operation, action, button placeholder or output name of the built
 *   descriptions, or a path of them joined by ` → ` (**Options → Download Files**). n8n's own
 *   names (its nodes, buttons, menus) are in *italics*. And the reverse: the options users set most
 *   (MOST_SET) exist under that name and are named in bold somewhere in those pages.
 * - The README's Operations table lists the action node's operations (resource, name, value), all of them.
 * - The README's set-up commands are CONTRIBUTING's, and each feature page is task-first: its first
 *   section is "What to build" (the options follow), and a later one "What is guaranteed".
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, posix, relative, resolve } from 'node:path';

import MarkdownIt from 'markdown-it';
import type { ICredentialType, INodeProperties, INodeType } from 'n8n-workflow';

import { ServiceBotApi } from '../../credentials/ServiceBotApi.credentials';
import { ServiceBot } from '../../nodes/ServiceBot/ServiceBot.node';
import { ServiceBotPollingTrigger } from '../../nodes/ServiceBotPollingTrigger/ServiceBotPollingTrigger.node';
import { ServiceBotTrigger } from '../../nodes/ServiceBotTrigger/ServiceBotTrigger.node';

const ROOT = join(__dirname, '..', '..');
const README_MAX_LINES = 320;
const FIRST_SCREEN_LINES = 60;
/**
 * The n8n community-node starter's README sections, in its order; "Credential" where the starter says
 * "Credentials": the package has one, and the nodes' documentation links point at `#credential`.
 */
const STARTER_SECTIONS = ['Installation', 'Operations', 'Credential', 'Compatibility', 'Usage', 'Resources', 'Version history'];

/** The options users set most: each is named so in the nodes and in bold in the README or docs/. */
const MOST_SET = [
	'Trigger On',
	'Restrict to Chat IDs',
	'Restrict to User IDs',
	'Add Handy Fields',
	'Download Files',
	'Photo Size',
	'Show Typing',
	'Separate Outputs by Kind',
	'Group Messages Within',
	'Long Poll Timeout',
	'Take Over Existing Webhook',
	'Delete Existing Webhook',
	'Max Connections',
	'Parse Mode',
	'Markdown From AI',
	'Reply Markup',
	'Define Keyboard',
	'Split Long Text',
	'Concurrency',
	'Source',
	'Input Binary Field',
	'Response Type',
	'Collect Answers',
	'Limit Wait Time',
	'After the Answer',
	'Access Token',
	'Base URL',
];

const markdown = new MarkdownIt({ html: true, linkify: false });
type Token = ReturnType<typeof markdown.parse>[number];

/** package.json's repository as `owner/name`, read from its URL. */
function repository(): string {
	const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { repository: { url: string }; homepage: string };
	const match = /github\.com\/([^/]+\/[^/.]+)(?:\.git)?$/.exec(pkg.repository.url);
	expect(match).not.toBeNull();
	expect(pkg.homepage.startsWith(`https://github.com/${String(match?.[1])}`)).toBe(true);
	return String(match?.[1]);
}
const REPOSITORY = repository();

/** The Markdown files of the repository (generated output and installed packages left out). */
function markdownFiles(): string[] {
	const skip = new Set(['node_modules', '.git', 'output', 'dist']);
	const found: string[] = [];
	const walk = (folder: string): void => {
		for (const entry of readdirSync(join(ROOT, folder), { withFileTypes: true })) {
			if (skip.has(entry.name) || (folder === 'test/real-n8n' && entry.name === 'n8n')) continue;
			const path = folder === '' ? entry.name : `${folder}/${entry.name}`;
			if (entry.isDirectory()) walk(path);
			else if (entry.name.endsWith('.md')) found.push(path);
		}
	};
	walk('');
	return found.sort();
}

function read(file: string): string {
	return readFileSync(join(ROOT, file), 'utf8');
}

const parsed = new Map<string, Token[]>();

/** A file's Markdown tokens, parsed once per test file. */
function tokensOf(file: string): Token[] {
	if (!parsed.has(file)) parsed.set(file, markdown.parse(read(file), {}));
	return parsed.get(file) ?? [];
}

/** Every inline token's children, flattened. */
function inlineChildren(tokens: Token[]): Token[] {
	return tokens.flatMap((token) => (token.type === 'inline' ? (token.children ?? []) : []));
}

/** A heading's anchor as GitHub makes it: lower case, punctuation and symbols dropped, spaces as `-`, `-1`, `-2`… for repeats. */
function anchorsOf(file: string): Set<string> {
	const tokens = tokensOf(file);
	const anchors = new Set<string>();
	const seen = new Map<string, number>();
	tokens.forEach((token, index) => {
		if (token.type !== 'heading_open') return;
		const text = (tokens[index + 1].children ?? []).map((child) => (child.type === 'text' || child.type === 'code_inline' ? child.content : '')).join('');
		const base = text
			.toLowerCase()
			.replace(/[^\p{L}\p{M}\p{N}\p{Pc}\- ]/gu, '')
			.replace(/ /g, '-');
		const count = seen.get(base) ?? 0;
		seen.set(base, count + 1);
		anchors.add(count === 0 ? base : `${base}-${count}`);
	});
	return anchors;
}

interface Link {
	file: string;
	href: string;
	/** A relative link (or an anchor of the file itself), or one to this repository on GitHub. */
	kind: 'relative' | 'repository';
	/** The repository path it names (the file itself for an anchor alone), and its anchor. */
	target: string;
	anchor: string;
}

const REPOSITORY_LINK = new RegExp(`^https://(?:github\\.com/${REPOSITORY}/(?:blob|tree)/main|raw\\.githubusercontent\\.com/${REPOSITORY}/main)(/[^#?]*)?(?:\\?[^#]*)?(?:#(.*))?$`);

/** The links and images of a file that name a file of this repository. */
function linksOf(file: string): Link[] {
	const links: Link[] = [];
	for (const child of inlineChildren(tokensOf(file))) {
		const attribute = child.type === 'link_open' ? child.attrGet('href') : child.type === 'image' ? child.attrGet('src') : null;
		if (attribute === null) continue;
		const href = String(attribute);
		const [path, anchor = ''] = href.split('#');
		const onGitHub = REPOSITORY_LINK.exec(href);
		if (onGitHub) {
			links.push({ file, href, kind: 'repository', target: decodeURIComponent(onGitHub[1] ?? '/').slice(1) || '.', anchor: onGitHub[2] ?? '' });
		} else if (!/^[a-z][a-z0-9+.-]*:/i.test(href)) {
			const target = path === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), decodeURIComponent(path))).split('\\').join('/') || '.';
			links.push({ file, href, kind: 'relative', target, anchor });
		}
	}
	return links;
}

/** What is wrong with a link: its target missing, or its anchor not a heading there. */
function brokenBecause(link: Link): string | undefined {
	if (link.target.startsWith('..')) return 'outside the repository';
	if (!existsSync(join(ROOT, link.target))) return `${link.target} does not exist`;
	if (link.anchor === '' || !link.target.endsWith('.md') || statSync(join(ROOT, link.target)).isDirectory()) return undefined;
	return anchorsOf(link.target).has(decodeURIComponent(link.anchor)) ? undefined : `${link.target} has no heading #${link.anchor}`;
}

/** The repository paths of the pages under docs/. */
function docsPages(): string[] {
	return markdownFiles().filter((file) => file.startsWith('docs/'));
}

/** The user pages whose bold phrases are names of the editor: the README and docs/ but its design notes. */
function userPages(): string[] {
	return ['README.md', ...docsPages().filter((file) => !file.startsWith('docs/design/'))];
}

/** Every name the nodes' and the credential's panels show. */
function editorNames(): Set<string> {
	const names = new Set<string>();
	const walk = (properties: INodeProperties[] | undefined): void => {
		for (const property of properties ?? []) {
			names.add(property.displayName);
			if (property.placeholder && (property.type === 'fixedCollection' || property.type === 'collection')) names.add(property.placeholder);
			for (const mode of property.modes ?? []) names.add(mode.displayName);
			const multipleButton = property.typeOptions?.multipleValueButtonText;
			if (typeof multipleButton === 'string') names.add(multipleButton);
			for (const option of (property.options ?? []) as unknown as Array<Record<string, unknown>>) {
				if (typeof option.type === 'string') {
					walk([option as unknown as INodeProperties]);
					continue;
				}
				if (Array.isArray(option.values)) {
					names.add(String(option.displayName));
					walk(option.values as INodeProperties[]);
					continue;
				}
				names.add(String(option.name));
				if (typeof option.action === 'string') names.add(option.action);
			}
		}
	};
	const nodes: INodeType[] = [new ServiceBot(), new ServiceBotTrigger(), new ServiceBotPollingTrigger()];
	for (const node of nodes) {
		names.add(node.description.displayName);
		walk(node.description.properties);
		// The trigger's outputs with Separate Outputs by Kind, written in an expression n8n evaluates.
		for (const output of JSON.stringify(node.description.outputs).matchAll(/\\"displayName\\":\\"([^\\"]+)\\"/g)) names.add(output[1]);
	}
	const credential: ICredentialType = new ServiceBotApi();
	names.add(credential.displayName);
	walk(credential.properties);
	return names;
}

/** The bold phrases of a page, with the line each starts on. */
function boldPhrases(file: string): Array<{ phrase: string; line: number }> {
	const phrases: Array<{ phrase: string; line: number }> = [];
	let line = 1;
	for (const token of tokensOf(file)) {
		// Table cells have no line of their own: the row's (or the table's) stands for them.
		if (token.map) line = token.map[0] + 1;
		if (token.type !== 'inline') continue;
		const children = token.children ?? [];
		children.forEach((child, index) => {
			if (child.type !== 'strong_open') return;
			let phrase = '';
			for (let next = index + 1; next < children.length && children[next].type !== 'strong_close'; next++) {
				phrase += children[next].type === 'softbreak' ? ' ' : children[next].content;
			}
			phrases.push({ phrase, line });
		});
	}
	return phrases;
}

describe('the README is a door', () => {
	const readme = read('README.md');
	const lines = readme.replace(/\n$/, '').split('\n');

	test(`it has at most ${README_MAX_LINES} lines`, () => {
		expect(lines.length).toBeLessThanOrEqual(README_MAX_LINES);
	});

	test("its sections follow the n8n community-node starter's order", () => {
		const sections = lines.filter((line) => line.startsWith('## ')).map((line) => line.slice(3));
		expect(sections.filter((section) => STARTER_SECTIONS.includes(section))).toEqual(STARTER_SECTIONS);
	});

	test(`the two set-up commands and the first bot are on its first screen (its first ${FIRST_SCREEN_LINES} lines)`, () => {
		const screen = lines.slice(0, FIRST_SCREEN_LINES);
		expect(screen.filter((line) => /^npm run dev\s+#/.test(line) || /^npm test\s+#/.test(line))).toHaveLength(2);
		expect(screen).toContain('### Your first bot');
	});

	test("its first bot promises for a photo what the starter answers to one: the file_summary handy field, a photo's kind, pixels and size", () => {
		const firstBot = readme.split('\n### Your first bot\n')[1].split('\n## ')[0];
		expect(firstBot.replace(/\s+/g, ' ')).toMatch(/"Got your photo, 1600×1000, 745\.2 KB": one handy field, `file_summary`/);
		const starter = JSON.parse(readFileSync(join(__dirname, '..', 'dev', 'workflows', 'first-bot.json'), 'utf8')) as { nodes: Array<{ name: string; parameters: { text?: string } }> };
		expect(starter.nodes.find((node) => node.name === 'Describe the File')?.parameters.text).toMatch(/^=Got your \{\{ \$json\.file_summary \}\}/);
	});

	test("its set-up commands are CONTRIBUTING's, word for word, and package.json has them", () => {
		const commands = (text: string): string[] => text.split('\n').filter((line) => /^npm (run dev|test)\s+#/.test(line));
		expect(commands(readme)).toEqual(commands(read('.github/CONTRIBUTING.md')));
		const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
		expect(Object.keys(scripts)).toEqual(expect.arrayContaining(['dev', 'test']));
	});
});

describe('the README builds a bot as the editor of new nodes has it', () => {
	const section = read('README.md').split('\n### Your own bot from scratch\n')[1].split('\n### ')[0];

	test('it maps no field that a new Service Bot node takes From Trigger by default (Chat, Callback Query ID, Message ID)', () => {
		const version = Math.max(...[new ServiceBot().description.version].flat());
		const atNewest = (property: INodeProperties): boolean => {
			const versions = property.displayOptions?.show?.['@version'] as Array<number | { _cnd: { gte?: number } }> | undefined;
			return versions === undefined || versions.some((entry) => (typeof entry === 'number' ? entry === version : version >= (entry._cnd.gte ?? 0)));
		};
		const fromTrigger = new Set(
			new ServiceBot().description.properties
				.filter((property) => atNewest(property) && (property.default as { mode?: string } | undefined)?.mode === 'trigger')
				.map((property) => property.displayName),
		);
		expect([...fromTrigger]).toEqual(expect.arrayContaining(['Chat', 'Callback Query ID', 'Message ID']));
		const mapped = [...section.matchAll(/\*\*([^*]+)\*\*\s*`\{\{/g)].map((match) => match[1]).filter((field) => fromTrigger.has(field));
		expect(mapped).toEqual([]);
	});

	test('it names the fields a person maps after a file arrives and after Send and Wait, before any run shows them', () => {
		const readme = read('README.md');
		const files = readme.split('\n### Files both ways\n')[1].split('\n### ')[0];
		const sendAndWait = readme.split('\n### Send and Wait for Response\n')[1].split('\n### ')[0];
		// The trigger's item of a file (spec: photo sizes carry width and height; voice notes a duration).
		expect(['file_kind', 'file_name', 'file_size', 'file_width', 'file_height', 'file_duration'].filter((field) => !files.includes(`\`${field}\``))).toEqual([]);
		// The answer's item (docs/send-and-wait.md, Output).
		expect(['approved', 'answer'].filter((field) => !sendAndWait.includes(`\`${field}\``))).toEqual([]);
	});

	test('it and the fields page say that the editor closes a typed {{ itself, so nobody types the closing }} too', () => {
		// n8n 2.41's expression editor inserts " }}" after a typed "{{"; typing "}}" as well leaves a stray "}}" in the text sent.
		expect(section).toMatch(/adds the closing `\}\}` itself/);
		expect(read('docs/messages.md')).toMatch(/adds the closing `\}\}` itself/);
	});

	test('it and the fields page say how to go on typing after the }} the editor added, so the rest of the text does not land inside the expression', () => {
		// The cursor stays before the added " }}": text typed on lands inside the braces and the preview shows [invalid syntax] (seen in the new-user trial).
		expect(section).toMatch(/cursor inside: click after the `\}\}`/);
		expect(read('docs/messages.md')).toMatch(/cursor inside: click after the `\}\}`/);
	});
});

describe("the README's Operations table is the action node's", () => {
	/** `Resource: Name=value` for each operation the table lists, and for each the node has. */
	test('it lists every operation of the Service Bot node under its resource, by name and value, and no other', () => {
		const section = read('README.md').split('\n## Operations\n')[1].split('\n## ')[0];
		const listed = section
			.split('\n')
			.map((line) => /^\|\s*([A-Z][a-z]+)\s*\|(.+)\|\s*$/.exec(line))
			.flatMap((row) => (row ? [...row[2].matchAll(/([A-Z][A-Za-z ]+?) \(`(\w+)`\)/g)].map((match) => `${row[1]}: ${match[1].trim()}=${match[2]}`) : []));
		const description = new ServiceBot().description.properties;
		const resources = new Map(
			(description.find((property) => property.name === 'resource')?.options ?? []).map((option) => ('value' in option ? [String(option.value), option.name] : ['', ''])),
		);
		const offered = description
			.filter((property) => property.name === 'operation')
			.flatMap((property) =>
				(property.options ?? []).map((option) => `${String(resources.get(String(property.displayOptions?.show?.resource?.[0])))}: ${option.name}=${'value' in option ? String(option.value) : ''}`),
			);
		expect(offered.length).toBeGreaterThan(30);
		expect([...listed].sort()).toEqual([...new Set(offered)].sort());
	});
});

describe('the feature pages are task-first', () => {
	/** The pages that are not a feature's: the index, and troubleshooting (symptom first). */
	const notFeatures = ['docs/README.md', 'docs/troubleshooting.md'];

	test('each feature page opens with "What to build" and has "What is guaranteed" after it', () => {
		const pages = userPages().filter((file) => file.startsWith('docs/') && !notFeatures.includes(file));
		expect(pages.length).toBeGreaterThanOrEqual(7);
		const wrong = pages
			.map((file) => ({ file, sections: read(file).split('\n').filter((line) => line.startsWith('## ')).map((line) => line.slice(3)) }))
			.filter(({ sections }) => sections[0] !== 'What to build' || sections.indexOf('What is guaranteed') < 1)
			.map(({ file, sections }) => `${file}: ${sections.join(' | ')}`);
		expect(wrong).toEqual([]);
	});
});

describe('links resolve', () => {
	test('every relative link and every link to this repository names a file of the checkout, and its anchor a heading there', () => {
		const files = markdownFiles();
		expect(files).toEqual(expect.arrayContaining(['README.md', 'CHANGELOG.md', '.github/CONTRIBUTING.md', 'docs/README.md']));
		const broken = files
			.flatMap(linksOf)
			.map((link) => ({ link, because: brokenBecause(link) }))
			.filter((found) => found.because !== undefined)
			.map(({ link, because }) => `${link.file}: (${link.href}) ${String(because)}`);
		expect(broken).toEqual([]);
	});

	test("the nodes' and the credential's documentation links (in the editor and the codex files) name headings of the README", () => {
		const urls = [
			...[new ServiceBot(), new ServiceBotTrigger(), new ServiceBotPollingTrigger()].map((node) => String(node.description.documentationUrl)),
			String(new ServiceBotApi().documentationUrl),
			...readdirSync(join(ROOT, 'nodes'), { recursive: true, encoding: 'utf8' })
				.filter((path) => path.endsWith('.node.json'))
				.flatMap((path) => [...read(posix.join('nodes', path.split('\\').join('/'))).matchAll(/"url":\s*"([^"]+)"/g)].map((match) => match[1])),
		];
		expect(urls.length).toBeGreaterThanOrEqual(10);
		const home = `https://github.com/${REPOSITORY}#`;
		const readme = anchorsOf('README.md');
		expect(urls.filter((url) => !url.startsWith(home) || !readme.has(url.slice(home.length)))).toEqual([]);
	});

	test('the README links repository files absolutely (it is shown on npm without them); relative links are its own anchors only', () => {
		const links = linksOf('README.md');
		expect(links.filter((link) => link.kind === 'repository').length).toBeGreaterThan(10);
		expect(links.filter((link) => link.kind === 'relative' && !link.href.startsWith('#')).map((link) => link.href)).toEqual([]);
	});
});

describe('every page under docs/ can be found from the README', () => {
	const fromReadme = new Set(linksOf('README.md').map((link) => link.target));

	test('the README links the index, docs/README.md, which links every page under docs/', () => {
		expect(fromReadme.has('docs/README.md')).toBe(true);
		const fromIndex = new Set(linksOf('docs/README.md').map((link) => link.target));
		expect(docsPages().filter((page) => page !== 'docs/README.md' && !fromIndex.has(page))).toEqual([]);
	});

	test('the README links every feature page (docs/ but the design notes) directly', () => {
		expect(docsPages().filter((page) => !page.startsWith('docs/design/') && !fromReadme.has(page))).toEqual([]);
	});
});

describe('the names of the editor in the docs are the nodes\' names', () => {
	const names = editorNames();

	test('every bold phrase of the README and the user pages of docs/ is a name the nodes or the credential show (or a path of them, joined by →)', () => {
		expect(names.size).toBeGreaterThan(150);
		const unknown = userPages().flatMap((file) =>
			boldPhrases(file)
				.filter(({ phrase }) => !phrase.split(' → ').every((part) => names.has(part)))
				.map(({ phrase, line }) => `${file}:${line}: **${phrase}**`),
		);
		expect(unknown).toEqual([]);
	});

	test('the options users set most exist under their names and are named in bold in the README or docs/', () => {
		expect(MOST_SET.filter((name) => !names.has(name))).toEqual([]);
		const bold = new Set(userPages().flatMap((file) => boldPhrases(file).flatMap(({ phrase }) => phrase.split(' → '))));
		expect(MOST_SET.filter((name) => !bold.has(name))).toEqual([]);
	});
});
