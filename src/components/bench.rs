//! The attack bench: every misuse of bob's ticket on one clock. The reader picks a move,
//! predicts what replica B will do (by default), and then sees each request the move sent,
//! its checks drawn once, and the server's answer.

use leptos::prelude::*;
use mrtr_world::misuse::{play_at, Move, Played, Upshot};
use mrtr_world::{Knobs, Tone};

use super::clock::Clock;
use super::knobs::BenchKnobs;
use super::page_link::{use_link, EditLink};
use super::CheckList;
use crate::state::json_view::one_line;
use crate::state::link::{LinkStoreFields, Widget};

/// What the clock draws a move as: its tone's class, or `hidden` until the reader has
/// predicted it.
fn shown_tone(p: Option<&Played>, revealed: bool) -> &'static str {
    match (p, revealed) {
        (Some(p), true) => p.tone().class(),
        _ => "hidden",
    }
}

/// The move's result in a few words, for its row: what the same run came to.
fn chip(p: &Played) -> String {
    match (p.tone(), p.upshot()) {
        (Tone::Harm, _) => format!("{} {}", Tone::Harm.glyph(), Tone::Harm.word()),
        (_, u) => u.label().into(),
    }
}

/// The knobs a prediction depends on: everything but the lifetime, which is dragged on the
/// clock like the moves' times (dragging keeps what was revealed).
fn world_of(k: Knobs) -> Knobs {
    Knobs { ttl_s: 0, ..k }
}

/// What the bench's parts read: every move's run, what the reader has revealed and guessed.
#[derive(Clone, Copy)]
struct Bench {
    plays: Memo<Vec<Option<Played>>>,
    knobs: Signal<Knobs>,
    predict: Signal<bool>,
    /// The moves whose outcome the reader has seen, each with the servers it was seen on:
    /// other servers pose the question again. Derived, not reset by an effect.
    revealed: RwSignal<Vec<(Move, Knobs)>>,
    /// The reader's guess, for the move it was made on.
    guess: RwSignal<Option<(Move, Upshot)>>,
    world: Memo<Knobs>,
}

impl Bench {
    fn seen(self, m: Move) -> bool {
        !self.predict.get() || {
            let w = self.world.get();
            self.revealed.with(|r| r.contains(&(m, w)))
        }
    }

    fn guessed(self, m: Move) -> Option<Upshot> {
        self.guess.get().filter(|(g, _)| *g == m).map(|(_, u)| u)
    }

    fn played(self, m: Move) -> Option<Played> {
        self.plays.with(|p| {
            Move::ALL
                .iter()
                .position(|x| *x == m)
                .and_then(|i| p[i].clone())
        })
    }

    fn reveal(self, m: Move) {
        let w = self.world.get_untracked();
        self.revealed.update(|r| r.push((m, w)))
    }
}

/// The attack bench: every misuse of the ticket on one clock.
#[component]
pub fn AttackBench() -> impl IntoView {
    let link = use_link();
    let knobs = link.knobs();
    let times = link.times();
    let plays = Memo::new(move |_| {
        let k = knobs.get();
        Move::ALL
            .into_iter()
            .zip(times.get())
            .map(|(m, at)| play_at(k, m, at))
            .collect::<Vec<_>>()
    });
    let bench = Bench {
        plays,
        knobs: knobs.into(),
        predict: link.predict().into(),
        revealed: RwSignal::new(Vec::new()),
        guess: RwSignal::new(None),
        world: Memo::new(move |_| world_of(knobs.get())),
    };
    let tones = Signal::derive(move || {
        plays.with(|p| {
            Move::ALL
                .into_iter()
                .zip(p)
                .map(|(m, p)| shown_tone(p.as_ref(), bench.seen(m)))
                .collect()
        })
    });
    let predict = link.predict();
    view! {
        <div class="bench-body">
            <BenchKnobs/>
            <Clock tones=tones/>
            <fieldset class="moves">
                <legend>"Your move: pick one"</legend>
                <label class="toggle predict-toggle">
                    <input type="checkbox" data-testid="predict" prop:checked=move || predict.get()
                        on:change=move |ev| { let on = event_target_checked(&ev); link.edit(Widget::Bench).predict().set(on); }/>
                    "Predict each outcome before I see it"
                </label>
                {Move::ALL.into_iter().enumerate().map(|(i, m)| view! { <MoveRow n=i + 1 m=m bench=bench/> }).collect_view()}
            </fieldset>
        </div>
    }
}

/// One move: its button and its chip, and its result when it is the move opened.
#[component]
fn MoveRow(n: usize, m: Move, bench: Bench) -> impl IntoView {
    let link = use_link();
    let mv = link.mv();
    view! {
        <div class="move-row" class:on=move || mv.get() == Some(m)>
            <label class="move">
                <input type="radio" name="bench-move" value=m.id() data-testid=format!("move-{}", m.id())
                    prop:checked=move || mv.get() == Some(m)
                    on:change=move |_| link.edit(Widget::Bench).mv().set(Some(m))/>
                <span class="move-n" aria-hidden="true">{n.to_string()}</span>
                <span class="move-text"><span class="move-label">{m.label()}</span>" "
                    // Most moves are bob's client's own; only the others say who plays them.
                    {(m.role() != "client").then(|| view! { <span class="role">{m.role()}</span>" " })}
                    <span class=move || format!("move-chip {}", shown_tone(bench.played(m).as_ref(), bench.seen(m))) data-testid=format!("chip-{}", m.id())>
                        {move || if bench.seen(m) { bench.played(m).map(|p| chip(&p)).unwrap_or_default() } else { "?".into() }}
                    </span>
                </span>
            </label>
            <Show when=move || mv.get() == Some(m)><MoveResult m=m bench=bench/></Show>
        </div>
    }
}

/// A move's result: the prediction asked first (when the reader predicts), then each request
/// the move sent, its checks, and the server's answer.
#[component]
fn MoveResult(m: Move, bench: Bench) -> impl IntoView {
    view! {
        <div class="move-result" data-testid="move-result">
            <Show when=move || m == Move::Launder>
                <p class="note" data-testid="launder-note">{move || bench.played(m).map(|p| p.launder_note(bench.knobs.get()))}</p>
            </Show>
            <Show when=move || !bench.seen(m)>
                <fieldset class="predict" data-testid="prediction">
                    <legend>"What will the replicas do?"</legend>
                    {Upshot::CHOICES.into_iter().map(|u| view! {
                        <label class="toggle">
                            <input type="radio" name="bench-guess" value=u.id() prop:checked=move || bench.guessed(m) == Some(u) on:change=move |_| bench.guess.set(Some((m, u)))/>
                            {u.label()}
                        </label>
                    }).collect_view()}
                    <button type="button" class="primary" data-testid="reveal" prop:disabled=move || bench.guessed(m).is_none()
                        on:click=move |_| bench.reveal(m)>"Reveal"</button>
                </fieldset>
            </Show>
            <Show when=move || bench.seen(m)>
                {move || bench.played(m).map(|o| {
                    let truth = o.upshot();
                    let right = bench.guessed(m).map(|g| g == truth);
                    view! {
                        {right.map(|r| view! {
                            <p class=if r { "feedback ok" } else { "feedback refused" } role="status" data-testid="prediction-feedback">
                                <strong>{if r { "You called it. " } else { "Not this time. " }}</strong>
                                {format!("The answer: {}. Why: {}", truth.label(), o.why())}
                            </p>
                        })}
                        {(m == Move::Renew).then(|| o.renewal_note().map(|n| view! { <p class="note" data-testid="renew-note">{n}</p> }))}
                        <Attempts played=o seal=bench.knobs.get().seal/>
                    }
                })}
            </Show>
        </div>
    }
}

/// Each request a move sent: what and when, the replica's checks, and its answer.
#[component]
fn Attempts(played: Played, seal: mrtr_core::ticket::Seal) -> impl IntoView {
    view! {
        <ol class="attempts" data-testid="attempts">
            {played.attempts.into_iter().enumerate().map(|(n, a)| view! {
                <li class="attempt">
                    <div class="attempt-col">
                        <h3>{format!("{}. The client sends, at t = {} s", n + 1, a.at_s)}</h3>
                        <p>{a.what.clone()}{format!(" (to replica {})", a.replica.name())}</p>
                        <p><code>{format!("Authorization: Bearer {}", a.bearer)}</code></p>
                        <details><summary>"The request, as sent"</summary><pre class="json small" tabindex="0">{serde_json::to_string_pretty(&a.request).unwrap_or_default()}</pre></details>
                    </div>
                    <div class="attempt-col lights">
                        <h3>{format!("Replica {} checks", a.replica.name())}</h3>
                        <CheckList verdict=a.verdict.clone() seal=seal harm=a.harm.clone()/>
                    </div>
                    <div class="attempt-col">
                        <h3>"The server answers"</h3>
                        <p class=if a.harm.is_some() { format!("answer-words {}", Tone::Harm.class()) } else { "answer-words".into() } data-testid="misuse-answer">
                            {a.harm.is_some().then(|| view! { <span class="warn-symbol" aria-hidden="true">{format!("{} ", Tone::Harm.glyph())}</span> })}
                            {a.answer.clone()}
                        </p>
                        <details class="json-fold"><summary>"As sent: "<code>{one_line(&a.response)}</code></summary><pre class="json small" tabindex="0">{serde_json::to_string_pretty(&a.response).unwrap_or_default()}</pre></details>
                        {a.detail.clone().map(|d| view! { <p class="log">"The replica's log (never sent): "<code>{d}</code></p> })}
                    </div>
                </li>
            }).collect_view()}
        </ol>
    }
}
