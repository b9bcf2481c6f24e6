use leptos::prelude::*;
use mrtr_core::checks::{Check, Status};
use mrtr_world::checks::{reason, shown, CheckWords, StatusWords};
use mrtr_world::timeline::{timeline, Row};

use super::knobs::ClockKnobs;
use crate::state::link::{Link, Widget, MAX_TIME_S};

// Whole SVG units: integers keep the float formatter out of the wasm.
const AXIS_W: u64 = 640;
const AXIS_PAD: u64 = 20;

fn x_of(t: u64, max: u64) -> u64 {
    AXIS_PAD + t.min(max) * (AXIS_W - 2 * AXIS_PAD) / max.max(1)
}

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
    let single = Memo::new(move |_| knobs.get().single_use);
    let checks = move || shown(single.get()).collect::<Vec<Check>>();
    let axis_max = Memo::new(move |_| {
        times
            .get()
            .into_iter()
            .chain([knobs.get().ttl_s, 400])
            .max()
            .unwrap_or(400)
    });
    view! {
        <div class="timeline-body">
            <ClockKnobs link=link widget=Widget::Timeline/>
            <svg class="axis" viewBox=format!("0 0 {AXIS_W} 70") role="img" aria-label="Clock: when each retry is sent, and when the ticket expires">
                <line class="axis-line" x1=AXIS_PAD y1="40" x2=AXIS_W - AXIS_PAD y2="40"/>
                {move || {
                    let max = axis_max.get();
                    let ttl = knobs.get().ttl_s;
                    let x = x_of(ttl, max);
                    view! {
                        <rect class="valid" x=AXIS_PAD y="34" width=x.saturating_sub(AXIS_PAD) height="12"/>
                        <line class="expiry" x1=x y1="14" x2=x y2="60"/>
                        <text class="expiry-label" x=x y="10" text-anchor="start" dx="4">{format!("expires at {ttl} s")}</text>
                        <text x=AXIS_PAD y="66" text-anchor="start">"0 s: minted"</text>
                        <text x=AXIS_W - AXIS_PAD y="66" text-anchor="end">{format!("{max} s")}</text>
                        {times.get().into_iter().enumerate().map(|(i, t)| view! {
                            <g class="marker"><circle cx=x_of(t, max) cy=if i % 2 == 0 { "40" } else { "22" } r="9"/><text x=x_of(t, max) y=if i % 2 == 0 { "44" } else { "26" } text-anchor="middle">{(i + 1).to_string()}</text></g>
                        }).collect_view()}
                    }
                }}
            </svg>
            <div class="table-wrap">
                <table class="timeline-table" data-testid="timeline-table">
                    <caption class="sr-only">"Each retry, the checks replica B (or A) ran on it, and the answer"</caption>
                    <thead>
                        <tr>
                            <th scope="col">"Retry"</th>
                            <th scope="col">"Sent at"</th>
                            <th scope="col">"Request"</th>
                            {move || checks().into_iter().map(|c| view! { <th scope="col" class="check-col" title=format!("{}: stops {}", c.question(), c.stops())>{c.short()}</th> }).collect_view()}
                            <th scope="col">"The server answers"</th>
                        </tr>
                    </thead>
                    <tbody>
                        {move || table.get().map(|t| t.rows.into_iter().enumerate().map(|(i, row)| {
                            let cells = checks().into_iter().map(|c| cell(&row, c)).collect::<Vec<_>>();
                            let accepted = row.outcome.completed();
                            view! {
                                <tr data-row=i.to_string() class=if accepted { "row ok" } else { "row refused" }>
                                    <th scope="row">{format!("{}. {}", i + 1, row.kind.title())}</th>
                                    <td class="when">
                                        <input type="range" min="0" max=MAX_TIME_S step="1" aria-label=format!("Time of retry {}", i + 1)
                                            data-testid=format!("time-{i}")
                                            prop:value=row.at_s.to_string()
                                            on:input=move |ev| {
                                                if let Ok(t) = event_target_value(&ev).parse::<u64>() {
                                                    link.update(|l| { l.times[i] = t.min(MAX_TIME_S); l.widget = Widget::Timeline; });
                                                }
                                            }/>
                                        <output>{format!("t = {} s", row.at_s)}</output>
                                    </td>
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
                                    <td class="answer" data-testid=format!("answer-{i}")>{row.answer.clone()}</td>
                                </tr>
                            }
                        }).collect_view())}
                    </tbody>
                </table>
            </div>
            <p class="hint">"✓ passed · ✗ failed · – not reached (an earlier check already refused) · ○ turned off. The checks stop edits, theft, lateness and misdirection, not repeats: only a server that remembers what it redeemed refuses the second send, and only if every replica shares that memory."</p>
        </div>
    }
}
