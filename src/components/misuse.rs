use leptos::prelude::*;
use mrtr_world::misuse::{play, Move, Upshot};

use super::knobs::LaunderKnobs;
use super::CheckList;
use crate::state::json_view::one_line;
use crate::state::link::{Link, Widget};

/// bob holds a ticket for staging; the reader plays the client or a thief.
#[component]
pub fn MisuseTicket(link: RwSignal<Link>) -> impl IntoView {
    let knobs = Memo::new(move |_| link.with(|l| l.knobs));
    let mv = Memo::new(move |_| link.with(|l| l.mv));
    let predict = Memo::new(move |_| link.with(|l| l.predict));
    let outcome = Memo::new(move |_| mv.get().and_then(|m| play(knobs.get(), m)));
    let guess = RwSignal::new(None::<Upshot>);
    let revealed = RwSignal::new(false);
    // A new move (or a new world) hides the answer again when predicting.
    Effect::new(move |_| {
        mv.track();
        knobs.track();
        guess.set(None);
        revealed.set(false);
    });
    let show = move || mv.get().is_some() && (!predict.get() || revealed.get());
    // The result opens right under the chosen move (an accordion), so on a phone it is next to
    // the move, not below all ten.
    let result = move || {
        view! {
            <div class="move-result" data-testid="move-result">
                <Show when=move || mv.get() == Some(Move::Launder)>
                    <p class="note" data-testid="launder-note">{move || launder_note(knobs.get())}</p>
                    <LaunderKnobs link=link widget=Widget::Misuse/>
                </Show>
                <Show when=move || mv.get() == Some(Move::Renew)>
                    <LaunderKnobs link=link widget=Widget::Misuse/>
                </Show>
                <Show when=move || show() && mv.get() == Some(Move::Renew)>
                    <p class="note" data-testid="renew-note">{move || outcome.get().and_then(|o| o.renewal_note())}</p>
                </Show>
                <Show when=move || predict.get() && mv.get().is_some() && !revealed.get()>
                    <fieldset class="predict" data-testid="prediction">
                        <legend>"What will replica B do?"</legend>
                        {Upshot::CHOICES.into_iter().map(|u| view! {
                            <label class="toggle">
                                <input type="radio" name="misuse-guess" value=u.id() prop:checked=move || guess.get() == Some(u) on:change=move |_| guess.set(Some(u))/>
                                {u.label()}
                            </label>
                        }).collect_view()}
                        <button type="button" class="primary" data-testid="reveal" prop:disabled=move || guess.get().is_none() on:click=move |_| revealed.set(true)>"Reveal"</button>
                    </fieldset>
                </Show>
                <Show when=show>
                    {move || outcome.get().map(|o| {
                        let truth = o.upshot();
                        let right = guess.get().map(|g| g == truth);
                        view! {
                            {right.map(|r| view! {
                                <p class=if r { "feedback ok" } else { "feedback refused" } role="status" data-testid="prediction-feedback">
                                    {if r { "You called it." } else { "Not this time." }}
                                    {format!(" The answer: {}.", truth.label())}
                                </p>
                            })}
                            <ol class="attempts" data-testid="attempts">
                                {o.attempts.into_iter().enumerate().map(|(n, a)| view! {
                                    <li class="attempt">
                                        <div class="attempt-col">
                                            <h3>{format!("{}. The client sends", n + 1)}</h3>
                                            <p>{a.what.clone()}</p>
                                            <p><code>{format!("Authorization: Bearer {} · at t = {} s", a.bearer, a.at_s)}</code></p>
                                            <details><summary>"The request, as sent"</summary><pre class="json small" tabindex="0">{serde_json::to_string_pretty(&a.request).unwrap_or_default()}</pre></details>
                                        </div>
                                        <div class="attempt-col lights">
                                            <h3>"Replica B checks"</h3>
                                            <CheckList verdict=a.verdict.clone() seal=knobs.get().seal harm=a.harm.clone()/>
                                        </div>
                                        <div class="attempt-col">
                                            <h3>"The server answers"</h3>
                                            <p class=if a.harm.is_some() { "answer-words harm" } else { "answer-words" } data-testid="misuse-answer">
                                                {a.harm.is_some().then(|| view! { <span class="warn-symbol" aria-hidden="true">"⚠ "</span> })}
                                                {a.answer.clone()}
                                            </p>
                                            <details class="json-fold"><summary>"As sent: "<code>{one_line(&a.response)}</code></summary><pre class="json small" tabindex="0">{serde_json::to_string_pretty(&a.response).unwrap_or_default()}</pre></details>
                                            {a.detail.clone().map(|d| view! { <p class="log">"B's log (never sent): "<code>{d}</code></p> })}
                                        </div>
                                    </li>
                                }).collect_view()}
                            </ol>
                        }
                    })}
                </Show>
            </div>
        }
    };
    view! {
        <div class="misuse-body">
            <label class="toggle">
                <input type="checkbox" data-testid="predict" prop:checked=move || predict.get()
                    on:change=move |ev| { let on = event_target_checked(&ev); link.update(|l| { l.predict = on; l.widget = Widget::Misuse; }); }/>
                "Let me predict the outcome before I see it"
            </label>
            <fieldset class="moves">
                <legend>"Your move"</legend>
                {Move::ALL.into_iter().map(|m| view! {
                    <label class=move || if mv.get() == Some(m) { "move on" } else { "move" }>
                        <input type="radio" name="misuse-move" value=m.id() data-testid=format!("move-{}", m.id())
                            prop:checked=move || mv.get() == Some(m)
                            on:change=move |_| link.update(|l| { l.mv = Some(m); l.widget = Widget::Misuse; })/>
                        <span class="move-text"><span class="move-label">{m.label()}</span>" "<span class="role">{m.role()}</span></span>
                    </label>
                    <Show when=move || mv.get() == Some(m)>{result}</Show>
                }).collect_view()}
            </fieldset>
        </div>
    }
}

/// What the laundering move tests under these settings, in a sentence.
fn launder_note(k: mrtr_world::Knobs) -> &'static str {
    match (k.single_use, k.naive_ask_again) {
        (false, _) => "Single use is off, so the server remembers nothing it redeemed: the same retry deploys as often as it is sent, and there is nothing to launder. Turn single use on.",
        (true, false) => "With single use on, the retry without its answer is looked up in the memory of redeemed tickets before the question is asked again: a spent ticket is refused there. Tickets re-issued while asking again keep the first ticket's id and deadline, so one flow can be redeemed only once.",
        (true, true) => "This naive server asks again without looking in its memory and mints a brand-new ticket, new id and new deadline. The fresh ticket was never redeemed, so it deploys a second time.",
    }
}
