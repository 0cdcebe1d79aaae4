/**
 * The answer page of Send and Wait for Response: plain HTML, readable on a phone, no external
 * assets (n8n's own form views are not available to community nodes). Every text is escaped (each
 * stands between tags, never in an attribute, so `&`, `<` and `>` are what the escape needs).
 */
import { NOTICES } from '../../../shared/sendAndWait/protocol';
import { escapeHtml } from '../../../shared/markdown/html';
import type { AskedQuestion } from './question';

function layout(title: string, body: string): string {
	return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,-apple-system,sans-serif;max-width:34rem;margin:2rem auto;padding:0 1rem;color:#222;line-height:1.45}
.question{white-space:pre-wrap;background:#f4f4f5;border-radius:.5rem;padding:1rem}
button{font:inherit;padding:.7rem 1rem;margin:.3rem .3rem 0 0;border:1px solid #888;border-radius:.5rem;background:#fff}
textarea{font:inherit;width:100%;min-height:7rem;box-sizing:border-box;margin:.5rem 0}
</style></head><body>${body}</body></html>`;
}

/**
 * Sends the form with fetch and shows n8n's reply in the page: n8n answers the answer that resumes
 * the execution with its notice, and any other with an error. A preselected answer (a link of a web
 * page question) is sent at once. Without scripts the form posts as usual and the browser shows the
 * reply as it is. A reply without a notice: another answer resumed the execution first, or the wait ended.
 */
function script(preselected: number | undefined): string {
	return `<script>
const form = document.getElementById('answer');
const result = document.getElementById('result');
async function send(data) {
	for (const element of form.elements) element.disabled = true;
	result.textContent = 'Sending…';
	let reply = null;
	let ok = false;
	try {
		const response = await fetch(location.href, { method: 'POST', headers: { accept: 'application/json' }, body: new URLSearchParams(data) });
		ok = response.ok;
		reply = await response.json();
	} catch (error) {}
	result.textContent = ok && reply && reply.resumed ? reply.notice : (reply && reply.notice) || ${JSON.stringify(NOTICES.gone)};
	form.hidden = true;
}
form.addEventListener('submit', (event) => {
	event.preventDefault();
	const data = new FormData(form);
	if (event.submitter && event.submitter.name) data.set(event.submitter.name, event.submitter.value);
	send(data);
});
${preselected === undefined ? '' : `send({ answer: '${preselected}' });`}
</script>`;
}

/** The question with its answers as buttons of a form, or a box for a written answer. */
export function questionPage(question: AskedQuestion, preselected?: number): string {
	const asked = `<p class="question">${escapeHtml(question.text)}</p><p id="result" role="status"></p>`;
	if (question.responseType === 'freeText') {
		return layout(
			'Your answer',
			`${asked}<form id="answer" method="post"><textarea name="text" required aria-label="Your answer"></textarea><button type="submit">${escapeHtml(question.answerLabel)}</button></form>${script(undefined)}`,
		);
	}
	const buttons = question.labels
		.map((label, index) => `<button type="submit" name="answer" value="${index}">${escapeHtml(label)}</button>`)
		.join('');
	return layout('Your answer', `${asked}<form id="answer" method="post">${buttons}</form>${script(preselected)}`);
}

/** A short page that says what happened. */
export function noticePage(notice: string): string {
	return layout(notice, `<p>${escapeHtml(notice)}</p>`);
}
