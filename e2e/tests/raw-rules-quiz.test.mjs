// Run it raw, the rules explorer and the quiz, in the browser.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, open, waitForApp } from '../lib/harness.mjs';

let site, browser;
before(async () => { site = await serve(); browser = await launch(); });
after(async () => { await browser?.close(); await site?.close(); });

test('run it raw: both eras side by side, and breaking the ticket', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=raw' });
  await waitForApp(page);
  const lane = (cls, phase) => page.locator(`.lane.${cls}[data-phase=${phase}]`).textContent();
  assert.match(await lane('modern', 'open'), /--> .*server\/discover/);
  assert.match(await lane('modern', 'ask'), /<-- .*"resultType":"input_required"/);
  assert.match(await lane('modern', 'finish'), /deployed to prod/);
  assert.match(await lane('modern', 'version'), /-32022.*"supported":\["2026-07-28"\]/);
  assert.match(await lane('legacy', 'open'), /--> .*"method":"initialize"/);
  assert.match(await lane('legacy', 'ask'), /<-- .*"method":"elicitation\/create"/);
  // That line is the server calling the client mid-request, and the page says 2026-07-28 forbids it.
  assert.match(await page.getByTestId('raw-mid-request').textContent(), /tools\/call \(id 2\) still waits.*2026-07-28 forbids/);
  assert.match(await lane('legacy', 'finish'), /deployed to prod/);
  // Break it: one character changed → -32602; with the signature check removed → accepted.
  // Each line folds to what it is; the bytes open on demand, all at once with Whole lines.
  assert.equal(await page.locator('.lane.modern[data-phase=open] details.line').first().getAttribute('open'), null);
  await page.getByTestId('raw-whole').click();
  assert.equal(await page.locator('.lane.modern[data-phase=open] details.line').first().getAttribute('open'), '');
  await page.getByTestId('raw-knobs-fold').locator('summary').click();
  await page.getByTestId('raw-change').check();
  assert.match(await lane('modern', 'finish'), /-32602/);
  await page.getByTestId('raw-nosig').check();
  assert.match(await lane('modern', 'finish'), /deployed to prod/);
  // The stateless legacy client fails cleanly.
  await page.getByTestId('raw-stateless').check();
  assert.match(await lane('legacy', 'finish'), /no channel to ask on/);
  // The download is the lane as JSON lines.
  const href = await page.getByTestId('raw-download-modern').getAttribute('href');
  const lines = decodeURIComponent(href.split(',').slice(1).join(',')).trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines[0].message.method, 'server/discover');
  assert.deepEqual(problems, []);
  await context.close();
});

test('rules explorer: tools/list never asks; undeclared kinds are never asked for', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=rules' });
  await waitForApp(page);
  assert.match(await page.getByTestId('rules-answer').textContent(), /input_required, asking for elicitation \(form\)/);
  await page.locator('input[data-cap=form]').uncheck();
  assert.match(await page.getByTestId('rules-answer').textContent(), /-32021/);
  // The deploy needs bob's yes: sampling would ask the host's model, so it still names the form.
  await page.locator('input[data-cap=sampling]').check();
  assert.match(await page.getByTestId('rules-answer').textContent(), /-32021/);
  assert.match(await page.getByTestId('rules-explanation').textContent(), /needed elicitation \(form\)/);
  assert.match(await page.getByTestId('rules-response-line').textContent(), /-32021/);
  await page.getByTestId('rules-method').selectOption('tools/list');
  assert.match(await page.getByTestId('rules-explanation').textContent(), /never input_required/);
  // The response folds to one line; opened, the whole JSON.
  assert.match(await page.getByTestId('rules-response-line').textContent(), /^result, complete/);
  assert.equal(await page.getByTestId('rules-response').isVisible(), false);
  await page.getByTestId('rules-response-line').click();
  assert.match(await page.getByTestId('rules-response').textContent(), /"resultType": "complete"/);
  assert.equal(await page.getByTestId('rules-response').isVisible(), true);
  // A spec rule's link opens the widget state that shows it.
  await page.getByTestId('spec-rules-fold').locator('summary').click();
  await page.getByTestId('spec-rules').getByText('See: alice with bob\'s ticket').click();
  await page.getByTestId('attempts').waitFor();
  assert.match(await page.getByTestId('misuse-answer').textContent(), /Principal is this caller/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('quiz: right and wrong answers, explanations, and progress kept across a reload', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=quiz' });
  await waitForApp(page);
  await page.getByTestId('quiz-reset').click();
  const q = (id) => page.locator(`[data-question=${id}]`);
  // One question at a time: the first shows, the others wait; the strip goes to any.
  assert.equal(await page.locator('#quiz li.question:visible').count(), 1);
  await page.getByTestId('quiz-next').click();
  assert.equal(await page.locator('#quiz li.question:visible').getAttribute('data-question'), 'methods');
  const go = (id) => page.locator(`[data-goto=${id}]`).click();
  await go('methods');
  await q('methods').getByLabel('tools/list').check();
  await q('methods').getByRole('button', { name: 'Check' }).click();
  assert.match(await page.getByTestId('feedback-methods').textContent(), /^Right\./);
  await go('stolen');
  await q('stolen').getByLabel('Nothing, since the signature checks out').check();
  await q('stolen').getByRole('button', { name: 'Check' }).click();
  assert.match(await page.getByTestId('feedback-stolen').textContent(), /^Not quite\./);
  // The wrong pick is told why it is wrong.
  assert.match(await page.getByTestId('feedback-stolen').textContent(), /Nothing, since the signature checks out” is wrong: The signature only says/);
  // A pick-all question, half right: what was found, what was wrong, what was missed.
  await go('retry');
  await q('retry').getByLabel('It uses a new JSON-RPC id').check();
  await q('retry').getByLabel(/It can drop _meta/).check();
  await q('retry').getByRole('button', { name: 'Check' }).click();
  const partial = await page.getByTestId('feedback-retry').textContent();
  assert.match(partial, /You found 1 of the 3 right options/);
  assert.match(partial, /drop _meta.*” is wrong: The server remembers nothing/);
  assert.match(partial, /byte for byte” is right too/);
  // Options are shown shuffled (the native test counts the positions): tools/list is not last.
  assert.notEqual(await q('methods').locator('input').last().evaluate((e) => e.closest('label').textContent), 'tools/list');
  // Multiple choice, by keyboard.
  await go('signature');
  await q('signature').getByLabel('A ticket edited from staging to prod').focus();
  await page.keyboard.press('Space');
  await q('signature').getByLabel('A ticket forged with a key the attacker made up').focus();
  await page.keyboard.press('Space');
  await q('signature').getByRole('button', { name: 'Check' }).focus();
  await page.keyboard.press('Enter');
  assert.match(await page.getByTestId('feedback-signature').textContent(), /^Right\./);
  assert.match(await page.getByTestId('quiz-score').textContent(), /^2 right of 4 answered/);
  await page.reload();
  await waitForApp(page);
  assert.match(await page.getByTestId('quiz-score').textContent(), /^2 right of 4 answered/);
  assert.match(await page.getByTestId('feedback-stolen').textContent(), /Not quite/);
  // The strip says where each answered question stands, in words too.
  assert.match(await page.locator('[data-goto=methods]').getAttribute('aria-label'), /answered right/);
  assert.match(await page.locator('[data-goto=stolen]').getAttribute('aria-label'), /not quite/);
  await go('stolen');
  // The explanation's link opens the lab in the state that shows it.
  await page.getByTestId('feedback-stolen').getByText('See it in the lab').click();
  await page.getByTestId('attempts').waitFor();
  await page.getByTestId('quiz-reset').click();
  assert.match(await page.getByTestId('quiz-score').textContent(), /^0 right of 0 answered/);
  assert.deepEqual(problems, []);
  await context.close();
});

test('quiz: a question to read SDK code by, and distractors that name the misconception', async () => {
  const { page, context, problems } = await open(browser, site, { path: '#w=quiz' });
  await waitForApp(page);
  await page.getByTestId('quiz-reset').click();
  const q = (id) => page.locator(`[data-question=${id}]`);
  const go = (id) => page.locator(`[data-goto=${id}]`).click();
  // The renewal question shows lines of interop/ts_server.mjs in a code block.
  await go('renewal');
  const code = q('renewal').locator('pre code');
  assert.equal(await code.count(), 1);
  assert.match(await code.textContent(), /requestState: await codec\.mint\(\{ env \}\)/);
  assert.match(await code.textContent(), /if \(!state \|\| ok\?\.confirm !== true\) \{/);
  await q('renewal').getByLabel(/carrying back the ticket it came with/).check();
  await q('renewal').getByRole('button', { name: 'Check' }).click();
  assert.match(await page.getByTestId('feedback-renewal').textContent(), /^Not quite\./);
  assert.match(await page.getByTestId('feedback-renewal').textContent(), /mint makes a new ticket each time/);
  await q('renewal').getByLabel(/a new ticket that expires ttlSeconds from now/).check();
  await q('renewal').getByRole('button', { name: 'Check' }).click();
  assert.match(await page.getByTestId('feedback-renewal').textContent(), /^Right\./);
  assert.match(await page.getByTestId('feedback-renewal').textContent(), /renewal row/);
  // Sending a retry twice: the used-up ticket is offered, and told why it is wrong.
  await go('twice');
  await q('twice').getByLabel(/refused because the ticket is used up/).check();
  await q('twice').getByRole('button', { name: 'Check' }).click();
  assert.match(await page.getByTestId('feedback-twice').textContent(), /Nothing marks a ticket as used/);
  assert.match(await page.getByTestId('quiz-score').textContent(), /^1 right of 2 answered, 18 questions/);
  await page.getByTestId('quiz-reset').click();
  assert.deepEqual(problems, []);
  await context.close();
});
