use leptos::prelude::*;
use leptos_use::storage::use_local_storage;
use mrtr_world::checks::glyph;

use super::lms::{tell_parent, use_course};
use crate::state::quiz::{
    feedback, shown_order, Draft, Progress, ProgressCodec, Question, QUESTIONS, STORAGE_KEY,
};
use crate::state::scorm;

#[component]
fn QuizQuestion(
    q: &'static Question,
    n: usize,
    progress: Signal<Progress>,
    set_progress: WriteSignal<Progress>,
    current: RwSignal<usize>,
    round: RwSignal<u32>,
) -> impl IntoView {
    let saved = move || progress.with(|p| p.answers.get(q.id).cloned());
    let draft = RwSignal::new(Draft::default());
    // What is ticked: the draft while it belongs to the saved answer and this round of the
    // quiz, else the saved answer — so a check or a reset (here or in another tab) shows
    // without anything being cleared.
    let picked = Memo::new(move |_| {
        progress.with(|p| draft.with(|d| d.shown(round.get(), p.answers.get(q.id))))
    });
    let name = format!("quiz-{}", q.id);
    view! {
        <li class="question" data-question=q.id hidden=move || current.get() != n - 1>
            <fieldset>
                <legend>{format!("{n}. {}", q.prompt)}{q.multi.then_some(" (more than one)")}</legend>
                // Code to read, when the question has some: as written, scrollable by keyboard.
                {q.code.map(|c| view! { <pre class="quiz-code" tabindex="0" data-testid=format!("code-{}", q.id)><code>{c}</code></pre> })}
                {shown_order(q).into_iter().map(|i| {
                    let text = q.options[i].0;
                    let name = name.clone();
                    view! {
                        <label class="option">
                            <input type=if q.multi { "checkbox" } else { "radio" } name=name value=i.to_string()
                                prop:checked=move || picked.with(|p| p.contains(&i))
                                on:change=move |ev| {
                                    let on = event_target_checked(&ev);
                                    let next = progress.with_untracked(|p| draft.with_untracked(|d| d.tick(round.get_untracked(), p.answers.get(q.id), q.multi, i, on)));
                                    draft.set(next);
                                }/>
                            {text}
                        </label>
                    }
                }).collect_view()}
                <button type="button" prop:disabled=move || picked.with(Vec::is_empty)
                    on:click=move |_| {
                        let choice = picked.get();
                        set_progress.update(|p| { p.answers.insert(q.id.to_owned(), choice); });
                    }>"Check"</button>
            </fieldset>
            {move || saved().map(|a| {
                let f = feedback(q, &a);
                let tally = (q.multi && !f.correct).then(|| {
                    format!("You found {} of the {} right options. ", f.found.0, f.found.1)
                });
                let reasons = f
                    .wrong
                    .iter()
                    .map(|(text, why)| view! { <li><span class="picked">{format!("\u{201c}{text}\u{201d}")}</span>" is wrong: "{*why}</li> })
                    .chain(f.missed.iter().map(|(text, why)| view! { <li><span class="picked">{format!("\u{201c}{text}\u{201d}")}</span>" is right too: "{*why}</li> }))
                    .collect_view();
                view! {
                    <div class=if f.correct { "feedback ok" } else { "feedback refused" } role="status" data-testid=format!("feedback-{}", q.id)>
                        <strong>{if f.correct { "Right. " } else { "Not quite. " }}</strong>
                        {tally}
                        <ul class="reasons">{reasons}</ul>
                        {q.explanation}" "
                        <a href=format!("#{}", q.link)>"See it in the lab"</a>
                    </div>
                }
            })}
        </li>
    }
}

/// The questions one at a time, with a strip to go to any of them; progress kept in this
/// browser. (All are in the page, so printing shows them all.)
#[component]
pub fn Quiz() -> impl IntoView {
    // Kept in this browser (storage full or blocked: kept for this visit), and shared with
    // the quiz in another tab.
    let (progress, set_progress, _) = use_local_storage::<Progress, ProgressCodec>(STORAGE_KEY);
    // In a course, the answers the course kept are where the learner left off; each answer
    // goes to the course, and to a parent window that listens, with the score shown here.
    let course = use_course();
    if let Some(resumed) = course.and_then(|c| c.resumed.get_value()) {
        set_progress.set(resumed);
    }
    Effect::watch(
        move || progress.get(),
        move |p, _, _| {
            let mastery = course.map_or(scorm::MASTERY_PERCENT, |c| c.mastery);
            tell_parent(&scorm::quiz_message(p, mastery), false);
            if let Some(c) = course {
                c.report(p);
            }
        },
        false,
    );
    let score = move || progress.with(Progress::score);
    let current = RwSignal::new(0usize);
    // A reset starts a new round: drafts ticked before it are not shown.
    let round = RwSignal::new(0u32);
    let last = QUESTIONS.len() - 1;
    let strip = QUESTIONS
        .iter()
        .enumerate()
        .map(|(i, q)| {
            // None: not answered; Some(right or not).
            let answered = move || progress.with(|p| p.answers.get(q.id).map(|a| feedback(q, a).correct));
            // (class, symbol, words) for where the question stands.
            let stands = move || match answered() {
                None => ("goto", None, ""),
                Some(true) => ("goto right", Some(glyph::YES), ", answered right"),
                Some(false) => ("goto wrong", Some(glyph::NO), ", answered, not quite"),
            };
            view! {
                <li><button type="button" data-goto=q.id class=move || stands().0
                    aria-current=move || (current.get() == i).then_some("step")
                    aria-label=move || format!("Question {}{}", i + 1, stands().2)
                    on:click=move |_| current.set(i)>{i + 1}<span aria-hidden="true">{move || stands().1.map(|g| format!(" {g}"))}</span></button></li>
            }
        })
        .collect_view();
    view! {
        <div class="quiz-body">
            <p class="score" data-testid="quiz-score" aria-live="polite">
                {move || { let (r, a, t) = score(); format!("{r} right of {a} answered, {t} questions") }}
                " "
                <button type="button" data-testid="quiz-reset" on:click=move |_| { set_progress.set(Progress::default()); round.update(|r| *r += 1); current.set(0); }>"Reset the quiz"</button>
            </p>
            {course.map(|c| view! { <p class="course-note" data-testid="course-note" role="status">{move || c.reporting.get().line()}</p> })}
            <ol class="quiz-strip" aria-label="Questions">{strip}</ol>
            <ol class="questions">
                {QUESTIONS.iter().enumerate().map(|(i, q)| view! { <QuizQuestion q=q n=i + 1 progress=progress set_progress=set_progress current=current round=round/> }).collect_view()}
            </ol>
            <div class="button-row quiz-nav">
                <button type="button" data-testid="quiz-prev" prop:disabled=move || current.get() == 0
                    on:click=move |_| current.update(|c| *c = c.saturating_sub(1))>"Previous question"</button>
                <button type="button" data-testid="quiz-next" prop:disabled=move || current.get() == last
                    on:click=move |_| current.update(|c| *c = (*c + 1).min(last))>"Next question"</button>
            </div>
        </div>
    }
}
