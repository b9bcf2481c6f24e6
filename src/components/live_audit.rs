//! "Audit it": the view of [`crate::state::live_audit`]. It does what the audit engine asks
//! (each `fetch`, each wait) and shows its progress and its report card; every verdict on it
//! is the engine's.

use leptos::prelude::*;
use mrtr_audit::{max_requests, Answer, Need, Progress, Turn, ROWS};
use wasm_bindgen_futures::JsFuture;

use super::audit::card;
use super::fetch::{page_origin, post};
use super::{copy_text, data_url};
use crate::state::live::{Form, Reply};
use crate::state::live_audit::{progress_words, AuditForm, Ended, LiveAudit};

/// Where the audit is.
#[derive(Clone, Debug, PartialEq)]
enum Stage {
    Idle,
    Running(Progress),
    Cancelled(Progress),
    Ended {
        ended: Ended,
        /// How long it took, in milliseconds.
        ms: u64,
        requests: usize,
    },
}

/// The audit of the server named in `form`, run in the page.
#[component]
pub fn LiveAuditPanel(form: RwSignal<Form>) -> impl IntoView {
    let choices = RwSignal::new(AuditForm::default());
    let stage = RwSignal::new(Stage::Idle);
    let form_error = RwSignal::new(None::<String>);
    // Bumped by each start and by cancel: a running audit whose number is no longer current
    // stops at its next step and is dropped with everything it holds.
    let generation = RwSignal::new(0u32);
    let running = move || matches!(stage.get(), Stage::Running(_));

    let start = move |_| {
        if matches!(stage.get_untracked(), Stage::Running(_)) {
            return;
        }
        let (audit, turn) = match LiveAudit::start(&form.get_untracked(), &choices.get_untracked())
        {
            Ok(s) => s,
            Err(e) => {
                form_error.set(Some(e));
                return;
            }
        };
        form_error.set(None);
        generation.update(|g| *g += 1);
        let gen = generation.get_untracked();
        stage.set(Stage::Running(audit.progress()));
        leptos::task::spawn_local(drive(audit, turn, gen, generation, stage));
    };
    let cancel = move |_| {
        if let Stage::Running(p) = stage.get_untracked() {
            generation.update(|g| *g += 1);
            stage.set(Stage::Cancelled(p));
        }
    };
    let command = move || choices.with(|c| form.with(|f| c.command(f)));

    view! {
        <section class="live-audit" aria-labelledby="live-audit-h" data-testid="live-audit">
            <h3 id="live-audit-h">"Audit it"</h3>
            <p class="hint">{format!("The audit tries every misuse the lab knows against the server above (the tool, arguments and tokens of the form), a fresh ticket for each, and reads each answer. It is the engine of mrtr-audit, the terminal's auditor, run here over fetch: {} rows, at most {} requests.", ROWS.len(), max_requests())}</p>
            {audit_options(choices)}
            <div class="live-audit-actions">
                <button type="button" data-testid="live-audit-start" prop:disabled=running on:click=start>"Run the audit"</button>
                <button type="button" data-testid="live-audit-cancel" prop:disabled=move || !running() on:click=cancel>"Cancel"</button>
            </div>
            {from_a_terminal(command)}
            {move || form_error.get().map(|e| view! { <p class="feedback refused" role="alert" data-testid="live-audit-error">{e}</p> })}
            <div aria-live="polite" data-testid="live-audit-status" class="live-status">
                {move || status_view(stage.get())}
            </div>
            {move || match stage.get() {
                Stage::Ended { ended: Ended::Report { json, card: c }, .. } => Some(view! {
                    <a class="button" data-testid="live-audit-download" download="mrtr-audit-report.json"
                        href=data_url("application/json", &json)>"Download JSON (mrtr-audit/1)"</a>
                    {card(c)}
                }.into_any()),
                Stage::Ended { ended: Ended::Failed(why), .. } => Some(view! {
                    <p class="feedback refused" role="alert" data-testid="live-audit-error">{why}</p>
                }.into_any()),
                _ => None,
            }}
        </section>
    }
}

/// What the audit checks beyond the form: whether the server claims single use, and how
/// long to wait for a ticket to expire.
fn audit_options(choices: RwSignal<AuditForm>) -> impl IntoView {
    view! {
    <div class="live-audit-options">
        <label class="live-field check">
            <input type="checkbox" data-testid="live-audit-single-use"
                prop:checked=move || choices.with(|c| c.single_use)
                on:change=move |ev| { let on = event_target_checked(&ev); choices.update(|c| c.single_use = on); }/>
            " The server claims single use (mrtr-server --single-use): run the repeat, launder and race rows"
        </label>
        <label class="live-field">
            <span>"Wait for expiry, in seconds (optional; longer than the server's --ttl)"</span>
            <input type="text" inputmode="numeric" data-testid="live-audit-ttl" autocomplete="off"
                prop:value=move || choices.with(|c| c.ttl_wait.clone())
                on:input=move |ev| { let v = event_target_value(&ev); choices.update(|c| c.ttl_wait = v); }/>
        </label>
    </div>
    }
}

/// The same audit as a command for mrtr-audit, to copy (tokens left out).
fn from_a_terminal(command: impl Fn() -> String + Copy + Send + Sync + 'static) -> impl IntoView {
    let copy_status = RwSignal::new(String::new());
    view! {
    <details class="raw-fold">
        <summary>"The same audit from a terminal"</summary>
        <pre class="json small command" tabindex="0" data-testid="live-audit-command">{command}</pre>
        <button type="button" on:click=move |_| copy_text(command(), "Copied the command.", copy_status)>"Copy the command"</button>
        <span class="hint" role="status">{move || copy_status.get()}</span>
        <p class="hint">"The tokens are left out (--token …): put yours in."</p>
    </details>
    }
}

/// Where the audit is: its progress while it runs, where it was cancelled, or how long it took.
fn status_view(stage: Stage) -> Option<AnyView> {
    match stage {
        Stage::Idle => None,
        Stage::Running(p) => Some(view! {
            <progress max=p.rows value=p.rows_done aria-label="Rows audited"></progress>
            <span>{progress_words(&p)}</span>
        }.into_any()),
        Stage::Cancelled(p) => Some(view! {
            <span data-testid="live-audit-cancelled">{format!("Cancelled after {} of {} rows and {} requests: nothing more is sent.", p.rows_done, p.rows, p.requests)}</span>
        }.into_any()),
        Stage::Ended { ms, requests, .. } => Some(view! {
            <span data-testid="live-audit-done" data-ms=ms.to_string()>{format!("Done: {requests} requests in {}.", seconds(ms))}</span>
        }.into_any()),
    }
}

/// "4.2 s", or "850 ms" under a second (integer arithmetic: no float formatting in the page).
fn seconds(ms: u64) -> String {
    if ms < 1000 {
        format!("{ms} ms")
    } else {
        format!("{}.{} s", ms / 1000, ms % 1000 / 100)
    }
}

/// Serves the audit's needs until it ends or is cancelled.
async fn drive(
    mut audit: LiveAudit,
    mut turn: Turn,
    gen: u32,
    generation: RwSignal<u32>,
    stage: RwSignal<Stage>,
) {
    let started = js_sys::Date::now();
    let current = move || generation.try_get_untracked() == Some(gen);
    // The progress is drawn at most every 100 ms and at each new row, not at each of the
    // hundreds of requests: redrawing it is a cost per request the terminal does not pay.
    let (mut drawn_at, mut drawn_row) = (f64::MIN, usize::MAX);
    loop {
        if !current() {
            return;
        }
        let progress = audit.progress();
        turn = match turn {
            Turn::Done(result) => {
                let ms = (js_sys::Date::now() - started).max(0.0) as u64;
                let ended = audit.end(result, &page_origin());
                let _ = stage.try_set(Stage::Ended {
                    ended,
                    ms,
                    requests: progress.requests,
                });
                return;
            }
            Turn::Need(need) => {
                let now = js_sys::Date::now();
                if now - drawn_at >= 100.0 || progress.rows_done != drawn_row {
                    (drawn_at, drawn_row) = (now, progress.rows_done);
                    let _ = stage.try_set(Stage::Running(progress));
                }
                let answer = serve(&mut audit, need).await;
                if !current() {
                    return;
                }
                audit.answer(answer)
            }
        };
    }
}

/// Does one need with `fetch` or a timer.
async fn serve(audit: &mut LiveAudit, need: Need) -> Answer {
    let url = audit.url.clone();
    match need {
        Need::Send { msg, who } => {
            let p = audit.post(&msg, who);
            let reply = post(&url, &p.body, p.headers).await;
            Answer::Sent(audit.exchange(&msg, reply))
        }
        Need::Race { msgs, who } => {
            let posts: Vec<_> = msgs.iter().map(|m| audit.post(m, who)).collect();
            // Every fetch starts on the first poll, before any answer is awaited.
            let replies: Vec<Reply> = futures::future::join_all(
                posts.iter().map(|p| post(&url, &p.body, p.headers.clone())),
            )
            .await;
            let answers = msgs
                .iter()
                .zip(replies)
                .map(|(m, r)| audit.exchange(m, r))
                .collect();
            Answer::Raced(Some(answers))
        }
        Need::Wait { ms } => {
            sleep(ms).await;
            Answer::Waited
        }
        Need::Clock => Answer::Clock(js_sys::Date::now() as u64 % 1000),
        Need::OversizeBody { bytes } => {
            let p = audit.oversize(bytes);
            let reply = post(&url, &p.body, p.headers).await;
            Answer::Oversize(Some(audit.oversize_exchange(reply)))
        }
        // A page cannot restart somebody's server.
        Need::Restart => Answer::Restarted(None),
    }
}

/// A timer as a future.
async fn sleep(ms: u64) {
    let ms = ms.min(i32::MAX as u64) as i32;
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = window().set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    let _ = JsFuture::from(promise).await;
}
