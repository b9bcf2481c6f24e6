//! "Try it on a real server": the view of [`crate::state::live`]. It does the `fetch`es and
//! shows what the session decided; nothing here judges an answer.

use leptos::prelude::*;
use serde_json::{json, Value};

use super::copy_text;
use super::fetch::{page_origin, post};
use crate::state::live::{
    headers, ticket_view, typed_value, Answers, Dir, Entry, FieldKind, Form, Mirrored, Phase,
    Question, Session, TicketView, REPLICA_HEADER, TIMEOUT_MS,
};
use crate::state::live_moves::{Move, MoveRun, Verdict};

/// The form, the round trip drawn step by step, and the wire log.
#[component]
pub fn LiveServer() -> impl IntoView {
    let form = RwSignal::new(Form::default());
    let session = RwSignal::new(None::<Session>);
    let form_error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(false);
    let origin = page_origin();
    let origin_for_view = origin.clone();

    let drive = move |first: String| {
        let token = form.with_untracked(|f| f.token.clone());
        busy.set(true);
        leptos::task::spawn_local(async move {
            let mut bytes = first;
            while let Some(url) = session.with_untracked(|s| s.as_ref().map(|s| s.url.clone())) {
                let msg: Value = serde_json::from_str(&bytes).unwrap_or_default();
                let started = js_sys::Date::now();
                let reply = post(&url, &bytes, headers(&msg, &token, &Mirrored::default())).await;
                let ms = (js_sys::Date::now() - started).max(0.0) as u32;
                match session
                    .try_update(|s| s.as_mut().and_then(|s| s.on_reply(reply, ms)))
                    .flatten()
                {
                    Some(next) => bytes = next,
                    None => break,
                }
            }
            busy.set(false);
        });
    };

    let connect = move |ev: leptos::ev::SubmitEvent| {
        ev.prevent_default();
        if busy.get_untracked() {
            return;
        }
        match Session::start(&form.get_untracked()) {
            Ok((s, bytes)) => {
                form_error.set(None);
                session.set(Some(s));
                drive(bytes);
            }
            Err(f) => {
                let url = form.with_untracked(|f| f.url.clone());
                form_error.set(Some(f.sentence(&page_origin(), &url)));
            }
        }
    };

    let answer = move |answers: Answers, decline: bool| {
        if let Some(Some(bytes)) =
            session.try_update(|s| s.as_mut().and_then(|s| s.answer(&answers, decline)))
        {
            drive(bytes);
        }
    };

    view! {
        <div class="live-body">
            <p class="hint">"This page's origin: "<code data-testid="live-origin">{origin_for_view}</code>
                ". A server must allow it (CORS) before the browser lets this page read its answers."</p>
            {live_form(form, busy, connect)}
            {move || form_error.get().map(|e| view! { <p class="feedback refused" role="alert" data-testid="live-error">{e}</p> })}
            <div aria-live="polite" data-testid="live-status" class="live-status">
                {move || session.with(|s| s.as_ref().map(|s| status_line(s, busy.get())))}
            </div>
            {move || session.with(|s| s.as_ref().map(rounds))}
            {move || session.with(|s| s.as_ref().and_then(|s| phase_view(s, &origin, answer)))}
            {move || session.with(|s| s.as_ref().map(|s| wire_log(&s.log)))}
            <LiveMoves form=form/>
            <super::live_audit::LiveAuditPanel form=form/>
        </div>
    }
}

/// The form that names the server, the tokens, the tool and its arguments; sent by `connect`.
fn live_form(
    form: RwSignal<Form>,
    busy: RwSignal<bool>,
    connect: impl Fn(leptos::ev::SubmitEvent) + 'static,
) -> impl IntoView {
    let field = |label: &'static str,
                 testid: &'static str,
                 kind: &'static str,
                 get: fn(&Form) -> String,
                 set: fn(&mut Form, String)| {
        view! {
            <label class="live-field">
                <span>{label}</span>
                <input type=kind data-testid=testid autocomplete="off" spellcheck="false"
                    prop:value=move || form.with(get)
                    on:input=move |ev| { let v = event_target_value(&ev); form.update(|f| set(f, v)); }/>
            </label>
        }
    };

    view! {
        <form class="live-form" on:submit=connect data-testid="live-form">
            {field("Server URL", "live-url", "url", |f| f.url.clone(), |f, v| f.url = v)}
            {field("Bearer token (optional)", "live-token", "password", |f| f.token.clone(), |f, v| f.token = v)}
            {field("Tool", "live-tool", "text", |f| f.tool.clone(), |f, v| f.tool = v)}
            {field("Arguments (JSON)", "live-args", "text", |f| f.args.clone(), |f, v| f.args = v)}
            {field("A second caller's token (optional, for the theft move)", "live-other-token", "password", |f| f.other_token.clone(), |f, v| f.other_token = v)}
            <p class="hint">"The tokens are kept out of this page's link and are sent only to the server above, in its Authorization header."</p>
            <button type="submit" data-testid="live-connect" prop:disabled=move || busy.get()>"Connect and call"</button>
        </form>
    }
}

/// What the session shows once its round trips stop: the host's questions, the result, or
/// the failure told as itself (nothing while it waits).
fn phase_view(
    s: &Session,
    origin: &str,
    answer: impl Fn(Answers, bool) + Copy + 'static,
) -> Option<AnyView> {
    match &s.phase {
        Phase::Asking { questions, ticket } => Some(ask(questions.clone(), ticket.clone(), answer).into_any()),
        Phase::Done { result, never_asked } => Some(done(result, *never_asked).into_any()),
        Phase::Failed(f) => Some(view! {
            <p class="feedback refused" role="alert" data-testid="live-error">{f.sentence(origin, &s.url)}</p>
        }.into_any()),
        Phase::Waiting => None,
    }
}

/// The misuse moves against the same server: each on a fresh ticket of its own, each verdict
/// the server's real answer beside what a server that holds does.
#[component]
fn LiveMoves(form: RwSignal<Form>) -> impl IntoView {
    let runs = RwSignal::new(vec![None::<MoveRun>; Move::ALL.len()]);
    let form_error = RwSignal::new(None::<String>);
    let busy = RwSignal::new(None::<usize>);
    let play = move |i: usize| {
        if busy.get_untracked().is_some() {
            return;
        }
        let f = form.get_untracked();
        // A form that cannot be sent says so here, beside the moves, as the call's form does.
        let started = f.check().and_then(|(url, _)| {
            MoveRun::start(Move::ALL[i], &f, &f.other_token)
                .map(|(run, first)| (url, run, first))
                .map_err(|e| e.sentence(&page_origin(), &f.url))
        });
        let (url, run, first) = match started {
            Ok(s) => {
                form_error.set(None);
                s
            }
            Err(why) => {
                form_error.set(Some(why));
                return;
            }
        };
        runs.update(|r| r[i] = Some(run));
        busy.set(Some(i));
        leptos::task::spawn_local(async move {
            let mut req = first;
            loop {
                let msg: Value = serde_json::from_str(&req.bytes).unwrap_or_default();
                let reply = post(
                    &url,
                    &req.bytes,
                    headers(&msg, &req.token, &Mirrored::default()),
                )
                .await;
                let next = runs
                    .try_update(|r| r[i].as_mut().and_then(|run| run.on_reply(reply)))
                    .flatten();
                match next {
                    Some(n) => req = n,
                    None => break,
                }
            }
            let _ = busy.try_set(None);
        });
    };
    let origin = page_origin();
    let steps = break_it(&origin);
    view! {
        {steps}
        <section class="live-moves" aria-labelledby="live-moves-h" data-testid="live-moves">
            <h3 id="live-moves-h">"Misuse it"</h3>
            <p class="hint">"Each move asks the server for a fresh ticket (a call of the tool above, answered yes), then sends what a careless client or a thief would send instead of the honest retry. What you see is the server's real answer."</p>
            {move || form_error.get().map(|e| view! { <p class="feedback refused" role="alert" data-testid="live-moves-error">{e}</p> })}
            <ul class="live-move-list">
                {Move::ALL.iter().enumerate().map(|(i, mv)| {
                    let origin = origin.clone();
                    view! {
                        <li data-move=mv.id()>
                            <button type="button" prop:disabled=move || busy.get().is_some() on:click=move |_| play(i)>{mv.title()}</button>
                            <p class="hint">"A server that holds: "{mv.should()}"."</p>
                            <div aria-live="polite">
                                {move || runs.with(|r| r[i].as_ref().map(|run| move_result(run, &origin, &form.with_untracked(|f| f.url.clone()))))}
                            </div>
                        </li>
                    }
                }).collect_view()}
            </ul>
        </section>
    }
}

/// The lesson's "break it" exercise against a real server, in steps, with the commands that
/// start the lab's server for this page's origin (run from this project's folder).
fn break_it(origin: &str) -> impl IntoView {
    let start = format!("cargo run -p mrtr-native --bin mrtr-server -- --http 127.0.0.1:8380 --single-use --cors-origin {origin}");
    let broken = format!("{start} --unsafe-skip-check signature");
    let command = move |text: String, testid: &'static str| {
        let status = RwSignal::new(String::new());
        let copied = text.clone();
        view! {
            <pre class="json small command" tabindex="0" data-testid=testid>{text}</pre>
            <button type="button" on:click=move |_| copy_text(copied.clone(), "Copied the command.", status)>"Copy the command"</button>
            <span class="hint" role="status">{move || status.get()}</span>
        }
    };
    view! {
        <details class="live-break" data-testid="live-break">
            <summary>"Break it yourself, in five steps"</summary>
            <ol>
                <li>"In a terminal, in this project's folder, start the lab's server so that this page may call it:"{command(start, "live-start")}</li>
                <li>"Connect and call above, answer its question, and watch the retry carry the ticket back byte for byte."</li>
                <li>"Make the moves below: a server that holds refuses every edited or stolen ticket."</li>
                <li>"Stop the server (Ctrl-C) and start it again with its signature check turned off:"{command(broken, "live-broken")}
                    "Then make \u{201c}The ticket's readable part edited, its signature kept\u{201d} again: the server now does the work: with its signature check off, nothing it checks notices this edit."</li>
                <li>"Run the audit below against the broken server: it fails the rows the signature check guards, the same rows mrtr-audit fails from a terminal."</li>
            </ol>
        </details>
    }
}

fn move_result(run: &MoveRun, origin: &str, url: &str) -> impl IntoView {
    let changed = run.changed.clone().map(|c| format!("Sent: {c}. "));
    // A verdict in its tone (glyph, word, class), as every verdict on the page; a move not
    // made or a failed request is no verdict.
    let tone = run.verdict().and_then(|v| v.tone());
    let lead = tone
        .map(|t| format!("{} {}", t.glyph(), t.word()))
        .unwrap_or_default();
    let (class, words) = match run.verdict() {
        None => ("hint".to_owned(), "Sending…".to_owned()),
        Some(Verdict::Refused { code, message }) => {
            (String::new(), format!("{lead} with {code}: {message}"))
        }
        Some(Verdict::RefusedHttp(status)) => {
            (String::new(), format!("{lead} with HTTP {status}."))
        }
        Some(Verdict::AskedAgain) => (
            String::new(),
            format!("{lead}: nothing was done with the ticket."),
        ),
        Some(Verdict::Accepted) => (String::new(), format!("{lead}: the server did the work.")),
        Some(Verdict::NotMade(why)) => ("hint".to_owned(), format!("Not made: {why}.")),
        Some(Verdict::Failed(f)) => ("feedback refused".to_owned(), f.sentence(origin, url)),
    };
    let class = match tone {
        Some(t) => format!("feedback {}", t.class()),
        None => class,
    };
    let sent = run
        .sent
        .iter()
        .map(|r| view! { <pre class="json small" tabindex="0">{format!("--> {}{}", if r.token.is_empty() { "(no token) " } else { "" }, r.bytes)}</pre> })
        .collect_view();
    view! {
        <p class=class data-testid="live-move-verdict">{changed}{words}</p>
        <details class="raw-fold"><summary>{format!("The {} request(s) sent", run.sent.len())}</summary>{sent}</details>
    }
}

fn status_line(s: &Session, busy: bool) -> String {
    match (&s.phase, busy) {
        (Phase::Waiting, _) => format!(
            "Round {}: waiting for {} (at most {} s)…",
            s.round(),
            s.url,
            TIMEOUT_MS / 1000
        ),
        (Phase::Asking { .. }, _) => "The server asked for input: answer below.".into(),
        (Phase::Done { .. }, _) => format!("Done in {} round(s).", s.round()),
        (Phase::Failed(_), _) => "Stopped: see why below.".into(),
    }
}

/// The round trip, one line per request: what went, who answered, what came back (in the
/// session's own words).
fn rounds(s: &Session) -> impl IntoView {
    let items = s
        .round_lines()
        .into_iter()
        .map(|line| view! { <li data-testid="live-round">{line}</li> })
        .collect_view();
    view! { <ol class="live-rounds" data-testid="live-rounds">{items}</ol> }
}

/// The server's questions, as the host would put them to its user, and the ticket.
fn ask(
    questions: Vec<Question>,
    ticket: Option<String>,
    answer: impl Fn(Answers, bool) + Copy + 'static,
) -> impl IntoView {
    let mut start = Answers::new();
    for q in &questions {
        let mut content = serde_json::Map::new();
        for f in &q.fields {
            let v = match &f.kind {
                FieldKind::Choice(o) => json!(o.first().cloned().unwrap_or_default()),
                k => typed_value(k, "", false),
            };
            content.insert(f.name.clone(), v);
        }
        start.insert(q.key.clone(), Value::Object(content));
    }
    let answers = RwSignal::new(start);
    let set = move |key: String, name: String, v: Value| {
        answers.update(|a| {
            if let Some(Value::Object(c)) = a.get_mut(&key) {
                c.insert(name, v);
            }
        })
    };
    let qs = questions
        .into_iter()
        .map(|q| {
            let key = q.key.clone();
            let fields = q
                .fields
                .into_iter()
                .map(|f| {
                    let (k, n) = (key.clone(), f.name.clone());
                    let testid = format!("live-q-{}-{}", key, f.name);
                    match f.kind.clone() {
                        FieldKind::Bool => view! {
                            <label class="live-field check"><input type="checkbox" data-testid=testid
                                on:change=move |ev| set(k.clone(), n.clone(), json!(event_target_checked(&ev)))/>
                                <span>{f.label}</span></label>
                        }.into_any(),
                        FieldKind::Choice(options) => view! {
                            <label class="live-field"><span>{f.label}</span>
                                <select data-testid=testid on:change=move |ev| set(k.clone(), n.clone(), json!(event_target_value(&ev)))>
                                    {options.into_iter().map(|o| view! { <option value=o.clone()>{o.clone()}</option> }).collect_view()}
                                </select></label>
                        }.into_any(),
                        kind => view! {
                            <label class="live-field"><span>{f.label}</span>
                                <input type=if kind == FieldKind::Number { "number" } else { "text" } data-testid=testid
                                    on:input=move |ev| set(k.clone(), n.clone(), typed_value(&kind, &event_target_value(&ev), false))/></label>
                        }.into_any(),
                    }
                })
                .collect_view();
            view! {
                <fieldset class="live-question" data-testid="live-question">
                    <legend>{format!("The server asks ({}): {}", q.key, q.message)}</legend>
                    {fields}
                </fieldset>
            }
        })
        .collect_view();
    view! {
        <div class="live-ask">
            {ticket.map(ticket_panel)}
            <form on:submit=move |ev: leptos::ev::SubmitEvent| { ev.prevent_default(); answer(answers.get_untracked(), false); }>
                <p class="hint">"You are the host's user now: what you answer goes back in the retry, with the ticket."</p>
                {qs}
                <div class="live-buttons">
                    <button type="submit" data-testid="live-answer">"Answer and retry"</button>
                    <button type="button" data-testid="live-decline" on:click=move |_| answer(answers.get_untracked(), true)>"Decline"</button>
                </div>
            </form>
        </div>
    }
}

/// The ticket as the inspector shows one: its payload when anyone can read it, or opaque.
fn ticket_panel(ticket: String) -> impl IntoView {
    let len = ticket.len();
    let view = match ticket_view(&ticket) {
        TicketView::Readable { format, json, place } => view! {
            <p>{format!("The ticket is {len} bytes in {format}, and readable: {place}. A real client must not read it (it only hands it back); the lab reads it here to teach.")}</p>
            <pre class="json small" tabindex="0" data-testid="live-ticket-payload">{json}</pre>
        }.into_any(),
        TicketView::Opaque { format } => view! {
            <p data-testid="live-ticket-opaque">{format!("The ticket is {len} bytes in {format}, and opaque: nothing in it reads as JSON, which is how a client should treat every ticket anyway.")}</p>
        }.into_any(),
    };
    view! {
        <div class="live-ticket" data-testid="live-ticket">
            <h3>"The ticket"</h3>
            {view}
            <details><summary>"The ticket as sent"</summary><pre class="json small wrap" tabindex="0">{ticket}</pre></details>
        </div>
    }
}

fn done(result: &Value, never_asked: bool) -> impl IntoView {
    let text = result
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|c| c.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(" ");
    let error = result.get("isError").and_then(Value::as_bool) == Some(true);
    let line = match (never_asked, error) {
        (true, _) => format!("The server answered at once, without asking for input: this tool never sends input_required, so there is no round trip to show (try one that asks, like mrtr-server's deploy). It said: {text}"),
        (false, true) => format!("The call completed, with the tool reporting an error: {text}"),
        (false, false) => format!("The call completed: {text}"),
    };
    view! { <p class=if error { "verdict refused" } else { "verdict ok" } role="status" data-testid="live-result">{line}</p> }
}

fn wire_log(log: &[Entry]) -> impl IntoView {
    let lines = log
        .iter()
        .map(|e| {
            let head = match e.dir {
                Dir::Sent => format!("--> round {}", e.round),
                Dir::Received => format!(
                    "<-- HTTP {}{}",
                    e.status.unwrap_or(0),
                    e.replica
                        .as_ref()
                        .map(|r| format!(", {REPLICA_HEADER}: {r}"))
                        .unwrap_or_default()
                ),
            };
            view! { <li><span class="comment">{head}</span><pre class="json small wrap" tabindex="0">{e.bytes.clone()}</pre></li> }
        })
        .collect_view();
    view! {
        <details class="live-wire" data-testid="live-wire">
            <summary>{format!("The wire log: {} messages, every byte", log.len())}</summary>
            <ol>{lines}</ol>
        </details>
    }
}
