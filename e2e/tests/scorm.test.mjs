// The SCORM 1.2 package in a course: scripts/scorm.sh zips the release build; the test
// unpacks it, checks its manifest, and runs it in a frame of a parent page whose LMS is
// scorm-again (the runtime LMS integrations use). The quiz is answered through the page, using
// only what the page tells a learner (its feedback), so the test knows no answer key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { serve, launch, open, DIST } from '../lib/harness.mjs';
import { axeViolations } from '../lib/axe.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
let browser, site, dir;

before(async () => {
  execFileSync('bash', [path.join(root, 'scripts/scorm.sh'), path.resolve(DIST)], { cwd: root, stdio: 'pipe' });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mrtr-scorm-'));
  const pkg = path.join(dir, 'pkg');
  execFileSync('python3', ['-c', 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])',
    path.join(root, 'dist-scorm/mrtr-lab-scorm12.zip'), pkg]);
  fs.copyFileSync(path.join(here, '../fixtures/lms.html'), path.join(dir, 'lms.html'));
  fs.copyFileSync(path.join(here, '../node_modules/scorm-again/dist/scorm12.js'), path.join(dir, 'scorm12.js'));
  site = await serve(dir);
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the package: a SCORM 1.2 manifest that lists every file, launching index.html, with a mastery score', () => {
  const pkg = path.join(dir, 'pkg');
  const manifest = fs.readFileSync(path.join(pkg, 'imsmanifest.xml'), 'utf8');
  assert.match(manifest, /<schemaversion>1\.2<\/schemaversion>/);
  assert.match(manifest, /adlcp:scormtype="sco" href="index.html"/);
  const scorm = fs.readFileSync(path.join(root, 'crates/mrtr-lab-state/src/scorm.rs'), 'utf8');
  const mastery = scorm.match(/pub const MASTERY_PERCENT: u32 = (\d+);/)[1];
  assert.match(manifest, new RegExp(`<adlcp:masteryscore>${mastery}</adlcp:masteryscore>`));
  const listed = [...manifest.matchAll(/<file href="([^"]+)"\/>/g)].map((m) => m[1]).sort();
  const onDisk = fs.readdirSync(pkg, { recursive: true })
    .filter((f) => fs.statSync(path.join(pkg, f)).isFile() && f !== 'imsmanifest.xml').sort();
  assert.deepEqual(listed, onDisk);
  assert.ok(listed.includes('index.html') && listed.some((f) => f.endsWith('.wasm')));
  // The implementers' tools, a module the page loads on demand, travel in the package too.
  assert.ok(listed.includes('mrtr-lab-tools.js') && listed.includes('mrtr-lab-tools_bg.wasm'), listed.join(' '));
});

/** The lab's page in the LMS's frame, its quiz on show. */
async function lms(query = '', colorScheme = 'light') {
  const opened = await open(browser, site, { path: `lms.html${query}`, colorScheme });
  const frame = opened.page.frameLocator('iframe');
  await frame.getByTestId('quiz-score').waitFor({ timeout: 20000 });
  return { ...opened, frame };
}

const cmi = (page) => page.evaluate(() => ({
  status: window.API.cmi.core.lesson_status,
  raw: window.API.cmi.core.score.raw,
  max: window.API.cmi.core.score.max,
  suspend: window.API.cmi.suspend_data,
}));

/** Answers question `id` right (right = true) or wrong, reading only the page's feedback. */
async function answer(frame, id, right) {
  await frame.locator(`[data-goto=${id}]`).click();
  const q = frame.locator(`[data-question=${id}]`);
  const inputs = q.locator('input');
  const n = await inputs.count();
  const check = () => q.getByRole('button', { name: 'Check' }).click();
  const verdict = async () => (await frame.getByTestId(`feedback-${id}`).textContent()).startsWith('Right.');
  if (await inputs.first().getAttribute('type') === 'checkbox') {
    // Tick all: the feedback names each wrong one. Untick those for right, keep all for wrong.
    for (let i = 0; i < n; i++) await inputs.nth(i).check();
    await check();
    if (await verdict() === right) return;
    const told = await frame.getByTestId(`feedback-${id}`).textContent();
    for (let i = 0; i < n; i++) {
      const text = (await inputs.nth(i).evaluate((e) => e.closest('label').textContent)).trim();
      if (told.includes(`\u201c${text}\u201d is wrong`)) await inputs.nth(i).uncheck();
    }
    await check();
  } else {
    for (let i = 0; i < n; i++) {
      await inputs.nth(i).check();
      await check();
      if (await verdict() === right) return;
    }
  }
  assert.equal(await verdict(), right, `question ${id} answered ${right ? 'right' : 'wrong'}`);
}

const questions = (frame) => frame.locator('[data-goto]').evaluateAll((bs) => bs.map((b) => b.dataset.goto));

test('every answer right: the course records passed and 100, resumes from suspend_data, and a parent hears the messages', async () => {
  const { page, context, problems, frame } = await lms();
  assert.equal((await cmi(page)).status, 'incomplete', 'the lesson is marked started');
  await assert.doesNotReject(frame.getByTestId('course-note').waitFor());
  const ids = await questions(frame);
  for (const id of ids) await answer(frame, id, true);
  const score = await frame.getByTestId('quiz-score').textContent();
  assert.match(score, new RegExp(`^${ids.length} right of ${ids.length} answered`));
  const got = await cmi(page);
  assert.deepEqual([got.status, got.raw, got.max], ['passed', '100', '100']);
  assert.match(await frame.getByTestId('course-note').textContent(), /Sent to your course: score 100 of 100/);
  const inner = page.frames().find((f) => f.url().includes('/pkg/index.html'));
  assert.deepEqual(await axeViolations(inner, '#quiz'), [], 'the quiz with its course line passes axe');
  // A host that is not SCORM hears the same count, and which widgets were worked through.
  const messages = await page.evaluate(() => window.messages);
  const last = messages.filter((m) => m?.type === 'mrtr-lab:quiz').at(-1);
  assert.deepEqual(last, { type: 'mrtr-lab:quiz', answered: ids.length, correct: ids.length, total: ids.length, passed: true });
  assert.ok(messages.some((m) => m?.type === 'mrtr-lab:progress' && m.widgets.includes('quiz')), JSON.stringify(messages.slice(0, 3)));
  // Leaving the page (pagehide) records the session's time and finishes the session.
  assert.equal(await page.evaluate(() => window.API.isTerminated()), false);
  await page.evaluate(() => { document.querySelector('iframe').src = 'about:blank'; });
  await page.waitForFunction(() => window.API.isTerminated());
  const time = await page.evaluate(() => window.sets.filter(([k]) => k === 'cmi.core.session_time').map(([, v]) => v));
  assert.equal(time.length, 1);
  assert.match(time[0], /^\d{2,4}:\d\d:\d\d(\.\d{1,2})?$/);
  assert.deepEqual(problems, []);
  await context.close();

  // A return visit, in a browser that kept nothing: the course's suspend_data resumes it.
  const again = await lms(`?resume=${encodeURIComponent(got.suspend)}`);
  await again.frame.getByTestId('quiz-score').filter({ hasText: `${ids.length} right of ${ids.length} answered` }).waitFor();
  // Some answers changed to wrong: the matching score, and failed.
  const wrong = Math.ceil(ids.length * 0.25);
  for (const id of ids.slice(0, wrong)) await answer(again.frame, id, false);
  const right = ids.length - wrong;
  assert.match(await again.frame.getByTestId('quiz-score').textContent(), new RegExp(`^${right} right of ${ids.length} answered`));
  const now = await cmi(again.page);
  assert.deepEqual([now.status, now.raw], ['failed', String(Math.floor(right * 100 / ids.length))]);
  assert.deepEqual(again.problems, []);
  await again.context.close();
});

test('an LMS that refuses the answers leaves the page working, with the quiet line saying so', async () => {
  const { page, context, problems, frame } = await lms('?fail=1', 'dark');
  const [first] = await questions(frame);
  await answer(frame, first, true);
  assert.match(await frame.getByTestId('course-note').textContent(), /did not take your answers \(LMSSetValue answered error \d+/);
  assert.match(await frame.getByTestId('quiz-score').textContent(), /^1 right of 1 answered/);
  const inner = page.frames().find((f) => f.url().includes('/pkg/index.html'));
  assert.deepEqual(await axeViolations(inner, '#quiz'), [], 'the quiz with its course line passes axe in dark');
  assert.deepEqual(problems, []);
  await context.close();
});

test('without an LMS the page is as it was: no course line', async () => {
  const plain = await serve();
  const { page, context, problems } = await open(browser, plain, { path: '#w=quiz' });
  await page.getByTestId('quiz-score').waitFor();
  assert.equal(await page.getByTestId('course-note').count(), 0);
  assert.deepEqual(problems, []);
  await context.close();
  await plain.close();
});
