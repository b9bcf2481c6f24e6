use leptos::prelude::*;
use mrtr_core::checks::{Check, Status};
use mrtr_world::checks::{reason, shown, CheckWords, StatusWords};
use mrtr_world::timeline::{timeline, Row};

use super::clock::Clock;
use super::from_next_task;
use super::knobs::ClockKnobs;
use crate::state::link::{Link, Widget};

fn cell(row: &Row, check: Check) -> (&'static str, &'static str, String) {
    match row.verdict.status(check) {
        Some(s @ Status::Failed(r)) => (s.symbol(), s.word(), reason(r)),
        Some(s) => (s.symbol(), s.word(), String::new()),
        None => ("", "", String::new()),
    }
}

/// One ticket, six retries, one clock: the lesson's table, every row a real run.
#[component]
pub fn TicketTimeline(link: RwSignal<Link>) -> impl IntoView {
    let knobs = Memo::new(move |_| link.with(|l| l.knobs));
    let times = Memo::new(move |_| link.with(|l| l.times));
    let table = Memo::new(move |_| timeline(knobs.get(), times.get()));
    let later = from_next_task();
    let single = Memo::new(move |_| knobs.get().single_use);
    let checks = move || shown(single.get()).collect::<Vec<Check>>();
    view! {
        <div class="timeline-body">
            <ClockKnobs link=link widget=Widget::Timeline/>
            <Clock link=link tones=Signal::derive(move || table.with(|t| t.as_ref().map(|t| t.rows.iter().map(|r| r.tone()).collect()).unwrap_or_default()))/>
            // The table a task after the clock.
            <Show when=move || later.get()>
                <div class="table-wrap">
                    <table class="timeline-table" data-testid="timeline-table">
                        <caption class="sr-only">"Each retry, the checks replica B (or A) ran on it, and the answer"</caption>
                        <thead>
                            <tr>
                                <th scope="col">"Retry"</th>
                                <th scope="col">"Sent at"</th>
                                <th scope="col">"Request"</th>
                                {move || checks().into_iter().map(|c| view! { <th scope="col" class="check-col" title=format!("{}: stops {}", c.question(knobs.get().seal), c.stops())>{c.short()}</th> }).collect_view()}
                                <th scope="col">"The server answers"</th>
                            </tr>
                        </thead>
                        <tbody>
                            {move || table.get().map(|t| t.rows.into_iter().enumerate().map(|(i, row)| {
                                let cells = checks().into_iter().map(|c| cell(&row, c)).collect::<Vec<_>>();
                                let tone = row.tone();
                                view! {
                                    <tr data-row=i.to_string() class=format!("row {tone}")>
                                        <th scope="row">{format!("{}. {}", i + 1, row.kind.title())}</th>
                                        <td class="when"><output>{format!("t = {} s", row.at_s)}</output></td>
                                        <td class="request">
                                            <code>{format!("Bearer {} · id {}", row.bearer, row.id)}</code><br/>
                                            {row.sent.clone()}
                                            <span class="via">{format!(" (to replica {})", row.replica.name())}</span>
                                        </td>
                                        {cells.into_iter().zip(checks()).map(|((sym, word, reason), c)| view! {
                                            <td class=format!("check-cell {}", word.replace(' ', "-")) title=reason data-label=c.short()>
                                                <span aria-hidden="true">{sym}</span><span class="sr-only">{word}</span>
                                            </td>
                                        }).collect_view()}
                                        <td class="answer" data-testid=format!("answer-{i}")>
                                            {(tone == "harm").then(|| view! { <span class="warn-symbol" aria-hidden="true">"⚠ "</span> })}
                                            {row.answer.clone()}
                                        </td>
                                    </tr>
                                }
                            }).collect_view())}
                        </tbody>
                    </table>
                </div>
            </Show>
            <p class="hint">"✓ passed · ✗ failed · – not reached (an earlier check already refused) · ○ turned off. The checks stop edits, theft, lateness and misdirection, not repeats: only a server that remembers what it redeemed refuses the second send, and only if every replica shares that memory."</p>
        </div>
    }
}
