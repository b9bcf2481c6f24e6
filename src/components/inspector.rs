use leptos::prelude::*;
use mrtr_world::inspect::{edit, inspect, minted_ticket, Editable, Inspection, Part};
use mrtr_world::scenario::tamper;
use mrtr_world::Tone;

use super::knobs::ServerKnobs;
use super::page_link::{use_link, EditLink};
use super::{from_next_task, CheckList};
use crate::state::json_view::one_line;
use crate::state::link::{LinkStoreFields, Widget, INSPECTOR_AT_S as RETRY_AT_S};

/// A run of the ticket's characters that share a part and a field.
#[derive(Clone, Debug, PartialEq)]
struct Segment {
    text: String,
    part: Part,
    field: Option<String>,
    /// Differs from bob's own ticket.
    changed: bool,
}

fn segments(i: &Inspection) -> Vec<Segment> {
    let mut out: Vec<Segment> = Vec::new();
    for (pos, ch) in i.ticket.char_indices() {
        let part = i
            .parts
            .iter()
            .find(|(_, r)| r.contains(&pos))
            .map(|(p, _)| *p);
        let Some(part) = part else {
            // Outside every part (a damaged ticket): shown plain.
            match out.last_mut() {
                Some(s) if s.field.is_none() && s.part == Part::Prefix && s.text.is_empty() => {
                    s.text.push(ch)
                }
                _ => out.push(Segment {
                    text: ch.to_string(),
                    part: Part::Prefix,
                    field: None,
                    changed: false,
                }),
            }
            continue;
        };
        let field = if part == Part::Payload {
            i.fields
                .iter()
                .find(|f| f.chars.contains(&pos))
                .map(|f| f.key.clone())
        } else {
            None
        };
        let changed = i.changed.as_ref().is_some_and(|r| r.contains(&pos));
        match out.last_mut() {
            Some(s) if s.part == part && s.field == field && s.changed == changed => {
                s.text.push(ch)
            }
            _ => out.push(Segment {
                text: ch.to_string(),
                part,
                field,
                changed,
            }),
        }
    }
    out
}

fn part_class(p: Part) -> &'static str {
    match p {
        Part::Prefix => "prefix",
        Part::Payload => "payload",
        Part::Signature => "signature",
        Part::Sealed => "sealed",
    }
}

/// The ticket taken apart and judged live. Edits are verified, never re-signed.
#[component]
pub fn TicketInspector() -> impl IntoView {
    let link = use_link();
    let knobs = link.knobs();
    let bobs = Memo::new(move |_| minted_ticket(knobs.get()).unwrap_or_default());
    let text = Memo::new(move |_| link.ticket().get().unwrap_or_else(|| bobs.get()));
    // The inspector's job is the ticket's bytes: its retry is sent at one time, 8 s after the
    // mint (the clock is the attack bench's).
    let inspection = Memo::new(move |_| inspect(knobs.get(), &text.get(), RETRY_AT_S));
    let later = from_next_task();
    let set_ticket = move |t: Option<String>| link.edit(Widget::Ticket).ticket().set(t);
    view! {
        <div class="inspector-body">
            <VerdictBar inspection=inspection/>
            // The bytes themselves are for experts: folded, unless the link brought a ticket.
            <details class="fold json-fold" open=link.with_untracked(|l| l.ticket.is_some()) data-testid="ticket-text-fold">
                <summary>"Edit the requestState itself, character by character"</summary>
                <label class="block-label" for="ticket-text">"The requestState bob's client sends back"</label>
                <textarea id="ticket-text" class="ticket-input" rows="5" spellcheck="false" autocomplete="off" data-testid="ticket-input"
                    prop:value=move || text.get()
                    on:input=move |ev| set_ticket(Some(event_target_value(&ev)))></textarea>
            </details>
            <div class="button-row">
                <button type="button" on:click=move |_| set_ticket(None)>"Reset to bob's ticket"</button>
                <button type="button" data-testid="edit-prod" on:click=move |_| set_ticket(Some(tamper(&bobs.get()).0))>"Edit it: staging → prod"</button>
            </div>
            <EditClaims inspection=inspection text=text/>
            <SignatureCheck inspection=inspection/>
            // The parts, the decoded payload and B's judgement: a task after the rest.
            <Show when=move || later.get()>
                {move || inspection.get().map(|i| view! {
                    <Anatomy inspection=i.clone()/>
                    <Judgement inspection=i/>
                })}
                <ServerKnobs widget=Widget::Ticket/>
            </Show>
        </div>
    }
}

/// How the retry carrying this ticket ends, in its tone: work bob never confirmed is harm,
/// drawn as a warning, never "Accepted" in green.
#[component]
fn VerdictBar(inspection: Memo<Option<Inspection>>) -> impl IntoView {
    move || {
        inspection.get().map(|i| {
            let tone = match (i.outcome.completed(), i.harm.is_some()) {
                (true, false) => Tone::Done,
                (true, true) => Tone::Harm,
                (false, _) => Tone::Refused,
            };
            let word = tone.word();
            view! {
                <p class=format!("verdict-bar {}", tone.class()) data-testid="ticket-verdict" role="status">
                    {(tone == Tone::Harm).then(|| view! { <span class="warn-symbol" aria-hidden="true">{format!("{} ", tone.glyph())}</span> })}
                    <strong>{word}</strong>
                    {i.verdict.first_failure().map(|(c, _)| format!(" — {} check", c.id()))}
                    // The answer without its first word when the bar already says it.
                    <span class="answer">{format!(" · {}", i.answer.strip_prefix(&format!("{word}: ")).unwrap_or(&i.answer))}</span>
                </p>
            }
        })
    }
}

/// The claims a reader can read, each in a box: the world re-encodes an edit into the
/// payload and hands the ticket back (never re-signed).
#[component]
fn EditClaims(inspection: Memo<Option<Inspection>>, text: Memo<String>) -> impl IntoView {
    let link = use_link();
    // Redrawn only when the claims change.
    let editable = Memo::new(move |_| {
        inspection.with(|i| i.as_ref().map(Inspection::editable).unwrap_or_default())
    });
    let edit_to = move |claim: Editable, typed: String| {
        if let Some(t) = edit(&text.get_untracked(), claim, &typed) {
            link.edit(Widget::Ticket).ticket().set(Some(t));
        }
    };
    move || {
        let claims = editable.get();
        (!claims.is_empty()).then(|| view! {
            <fieldset class="edit-claims" data-testid="edit-claims">
                <legend>"Edit what you can read"</legend>
                <p class="hint">"Change a field: the payload is re-encoded (the changed characters are marked under Its parts), and the signature is still the one A made for the old payload."</p>
                {claims.into_iter().map(|c| {
                    let claim = c.claim;
                    view! {
                        <label>{claim.label()}<input type=if claim.numeric() { "number" } else { "text" } data-claim=claim.id()
                            prop:value=c.shown.clone().unwrap_or_default()
                            placeholder=c.shown.is_none().then_some("out of range")
                            on:change=move |ev| edit_to(claim, event_target_value(&ev))/></label>
                    }
                }).collect_view()}
            </fieldset>
        })
    }
}

/// The signature the ticket carries beside the one replica B computes, and what that comes
/// to, read off B's verdict on the same retry.
#[component]
fn SignatureCheck(inspection: Memo<Option<Inspection>>) -> impl IntoView {
    move || {
        inspection.get().and_then(|i| i.signature.clone().map(|s| (s, i.verdict))).map(|(sig, verdict)| {
            let ok = sig.matches();
            let meaning = sig.meaning(&verdict);
            let computed = match &sig.computed {
                Ok(c) => c.clone(),
                Err(why) => format!("none: {why}"),
            };
            view! {
                <dl class="signature-check" data-testid="signature-check">
                    <dt>"Signature the ticket carries"</dt><dd><code>{sig.carried.clone()}</code></dd>
                    <dt>"Signature replica B computes for this payload"</dt><dd><code>{computed}</code></dd>
                    <dt class="sr-only">"So"</dt>
                    <dd class=if ok { "same ok" } else { "same refused" } data-testid="signature-meaning">{meaning}</dd>
                </dl>
            }
        })
    }
}

/// The ticket's parts, each field's characters tied to its row of the decoded payload
/// (hover or focus one to see the other), and where a broken ticket breaks.
#[component]
fn Anatomy(inspection: Inspection) -> impl IntoView {
    let hot = RwSignal::new(None::<String>);
    let i = inspection;
    let segs = segments(&i);
    view! {
        <div class="anatomy">
            <h3>"Its parts"</h3>
            <p class="ticket-parts" data-testid="ticket-parts">
                {segs.into_iter().map(|s| {
                    let class = format!("tseg {}{}", part_class(s.part), if s.changed { " changed" } else { "" });
                    match s.field.clone() {
                        Some(f) => {
                            let f2 = f.clone();
                            let f3 = f.clone();
                            let tip = format!("these characters encode \u{201c}{f}\u{201d}");
                            view! {
                                <span class=format!("{class} field-run") class:hot=move || hot.get().as_deref() == Some(f3.as_str())
                                    tabindex="0" data-tip=tip data-field=f.clone()
                                    on:mouseenter=move |_| hot.set(Some(f.clone()))
                                    on:focus=move |_| hot.set(Some(f2.clone()))
                                    on:mouseleave=move |_| hot.set(None)
                                    on:blur=move |_| hot.set(None)>{s.text}</span>
                            }.into_any()
                        }
                        None => view! { <span class=class>{s.text}</span> }.into_any(),
                    }
                }).collect_view()}
            </p>
            <ul class="part-legend">
                {i.parts.iter().map(|(p, r)| view! { <li><span class=format!("swatch {}", part_class(*p))></span>{format!("{} ({} characters)", p.label(), r.len())}</li> }).collect_view()}
            </ul>
            {i.problem.clone().map(|p| view! { <p class="problem" data-testid="ticket-problem">"Where it breaks: "{p}</p> })}
            {(i.payload.is_none() && i.problem.is_none()).then(|| view! { <p class="sealed-note">"Sealed: without the key the payload is noise. The checks below still run, because the replicas hold the key. Signing stops edits; sealing also stops reading."</p> })}
            {(!i.fields.is_empty()).then(|| view! {
                // Each field and what it is for: folded to one line until asked for.
                <details class="fold claims-fold" data-testid="claims-fold">
                <summary>{format!("The payload, decoded: {} fields anyone holding the ticket can read", i.fields.len())}</summary>
                <table class="claims" data-testid="claims">
                    <caption class="sr-only">"The payload, decoded: anyone holding the ticket can read this"</caption>
                    <thead><tr><th scope="col">"Field"</th><th scope="col">"Value"</th><th scope="col">"What it is for"</th></tr></thead>
                    <tbody>
                        {i.fields.iter().cloned().map(|f| {
                            let k = f.key.clone();
                            let k2 = f.key.clone();
                            view! {
                                <tr class:hot=move || hot.get().as_deref() == Some(k.as_str())
                                    on:mouseenter=move |_| hot.set(Some(k2.clone())) on:mouseleave=move |_| hot.set(None)>
                                    <th scope="row"><code>{f.key.clone()}</code></th>
                                    <td><code class="value">{f.value}</code>{f.reading.map(|r| view! { <br/><span class="reading">{r}</span> })}</td>
                                    <td>{f.explanation}</td>
                                </tr>
                            }
                        }).collect_view()}
                    </tbody>
                </table>
                </details>
            })}
        </div>
    }
}

/// Replica B's judgement: every check it ran (folded), what the client receives, and the
/// replica's log.
#[component]
fn Judgement(inspection: Inspection) -> impl IntoView {
    let seal = use_link().knobs().with_untracked(|k| k.seal);
    let i = inspection;
    view! {
        <div class="judgement">
            // The verdict bar above says how it ends; every check, folded.
            <details class="fold checks-fold" data-testid="ticket-checks-fold">
                <summary>"Every check replica B ran on this retry"</summary>
                <CheckList verdict=i.verdict.clone() seal=seal by="Replica B" harm=i.harm.clone()/>
            </details>
            // Folded to one line: the verdict above already says how it ends.
            <details class="fold json-fold" data-testid="ticket-response-fold">
                <summary>"What the client receives: "<code>{one_line(&i.response)}</code></summary>
                <pre class="json small" tabindex="0" data-testid="ticket-response">{serde_json::to_string_pretty(&i.response).unwrap_or_default()}</pre>
            </details>
            {i.detail.clone().map(|d| view! { <p class="log">"Replica B's log (never sent): "<code>{d}</code></p> })}
        </div>
    }
}
