use leptos::prelude::*;
use mrtr_world::raw::{legacy, modern, Lane, TranscriptPhase};

use super::page_link::{use_link, EditLink};
use super::{copy_text, data_url};
use crate::state::json_view::one_line;
use crate::state::link::{LinkStoreFields, Widget};

/// The lab's raw transcripts, side by side: both eras, same handler, every line real.
#[component]
pub fn RunItRaw() -> impl IntoView {
    let link = use_link();
    let knobs = link.knobs();
    let breakage = link.breakage();
    let stateless = link.stateless();
    let lanes = Memo::new(move |_| {
        (
            modern(knobs.get(), breakage.get()),
            legacy(knobs.get(), stateless.get()),
        )
    });
    let shown = RwSignal::new(TranscriptPhase::ALL.len());
    let status = RwSignal::new(String::new());
    // Each line folds to what it is (its method, or how it answers); the bytes open on demand.
    let whole = RwSignal::new(false);
    view! {
        <div class="raw-body">
            {break_it()}
            <div class="button-row">
                <button type="button" on:click=move |_| shown.set(1)>"Start"</button>
                <button type="button" data-testid="raw-next" on:click=move |_| shown.update(|n| *n = (*n + 1).min(TranscriptPhase::ALL.len()))
                    prop:disabled=move || { shown.get() >= TranscriptPhase::ALL.len() }>"Next phase"</button>
                <button type="button" on:click=move |_| shown.set(TranscriptPhase::ALL.len())>"Show all"</button>
                <button type="button" data-testid="raw-whole" aria-pressed=move || whole.get().to_string()
                    on:click=move |_| whole.update(|w| *w = !*w)>"Whole lines"</button>
                <span class="status" role="status">{move || status.get()}</span>
            </div>
            {save_fold(lanes, status)}
            <div class="lanes" data-testid="lanes">
                <div class="lane-head">{move || lanes.get().0.title}</div>
                <div class="lane-head">{move || lanes.get().1.title}</div>
                {move || {
                    let (m, l) = lanes.get();
                    TranscriptPhase::ALL.into_iter().take(shown.get()).map(|p| view! {
                        <h3 class="phase">{p.title()}</h3>
                        <div class="lane modern" data-phase=format!("{p:?}").to_ascii_lowercase()>{cell(&m, p, whole)}</div>
                        <div class="lane legacy" data-phase=format!("{p:?}").to_ascii_lowercase()>{cell(&l, p, whole)}</div>
                    }).collect_view()
                }}
            </div>
        </div>
    }
}

/// The lines of one `lane` in one `phase`, each folded to what it is (its bytes open on
/// demand, or all at once with `whole`).
fn cell(lane: &Lane, phase: TranscriptPhase, whole: RwSignal<bool>) -> impl IntoView {
    lane.lines
        .iter()
        .filter(|l| l.phase == phase)
        .map(|l| {
            let arrow = if l.outgoing { "--> " } else { "<-- " };
            // A request the server sent in the middle of the client's: the old way to
            // ask, glossed from the line itself.
            let gloss = l.mid_request.as_ref().map(|m| view! {
                <p class="line-note forbidden" data-testid="raw-mid-request">
                    <strong>"Forbidden since 2026-07-28. "</strong>{m.gloss()}
                </p>
            });
            view! {
                <details class=if l.outgoing { "line out" } else { "line in" } prop:open=move || whole.get()>
                    <summary><code>{arrow}{one_line(&l.json)}</code></summary>
                    <code class="bytes">{l.json.to_string()}</code>
                </details>
                {gloss}
            }
        })
        .collect_view()
}

/// The knobs that break the round trip: an edited ticket, no signature check, a legacy
/// client with no channel to ask on.
fn break_it() -> impl IntoView {
    let link = use_link();
    let (breakage, stateless) = (link.breakage(), link.stateless());
    view! {
    <details class="fold knobs-fold" data-testid="raw-knobs-fold"
        open=link.with_untracked(|l| l.breakage != Default::default() || l.stateless)>
    <summary>"Break it"</summary>
    <fieldset class="knobs">
        <legend class="sr-only">"Break it"</legend>
        <div class="knob-row">
            <label class="toggle"><input type="checkbox" data-testid="raw-change" prop:checked=move || breakage.get().change_ticket
                on:change=move |ev| { let on = event_target_checked(&ev); link.edit(Widget::Raw).breakage().update(|b| b.change_ticket = on); }/>"Change one character of the ticket before the retry"</label>
            <label class="toggle"><input type="checkbox" data-testid="raw-nosig" prop:checked=move || breakage.get().no_signature_check
                on:change=move |ev| { let on = event_target_checked(&ev); link.edit(Widget::Raw).breakage().update(|b| b.no_signature_check = on); }/>"Remove the server's signature check"</label>
            <label class="toggle"><input type="checkbox" data-testid="raw-stateless" prop:checked=move || stateless.get()
                on:change=move |ev| { let on = event_target_checked(&ev); link.edit(Widget::Raw).stateless().set(on); }/>"Legacy client over stateless HTTP (no channel to ask on)"</label>
        </div>
    </fieldset>
    </details>
    }
}

/// Both transcripts, to copy or to download as JSON lines.
fn save_fold(lanes: Memo<(Lane, Lane)>, status: RwSignal<String>) -> impl IntoView {
    view! {
    <details class="fold save-fold" data-testid="raw-save-fold">
        <summary>"Copy or download the transcripts"</summary>
        <div class="button-row">
            <button type="button" data-testid="raw-copy" on:click=move |_| {
                let (m, l) = lanes.get();
                copy_text(format!("=== {} ===\n{}\n=== {} ===\n{}", m.title, m.text(), l.title, l.text()), "Copied both transcripts.", status);
            }>"Copy transcripts"</button>
            <span class="download">"Download as JSON lines: "
                <a class="button" data-testid="raw-download-modern" download="mrtr-modern.jsonl" href=move || data_url("application/x-ndjson", &lanes.get().0.jsonl())>"2026 lane"</a>" "
                <a class="button" download="mrtr-legacy.jsonl" href=move || data_url("application/x-ndjson", &lanes.get().1.jsonl())>"legacy lane"</a>
            </span>
        </div>
    </details>
    }
}
