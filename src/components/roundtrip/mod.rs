//! The two-replica round trip: the ending to play, a caption per step, the diagram, the
//! player and the wire. Its state is a trace from the world (a memo of the link's knobs and
//! ending) and a [`Player`]: the step and the speed are the link's (so every step has a URL),
//! the animation's progress the player's own.

mod controls;
mod diagram;
mod transcript;

use leptos::prelude::*;
use leptos_use::{use_media_query, use_raf_fn_with_options, UseRafFnCallbackArgs, UseRafFnOptions};
use mrtr_world::{Ending, Trace};
use reactive_stores::Store;

use super::page_link::{use_link, EditLink};
use super::CheckList;
use crate::state::geometry::Layout;
use crate::state::link::{Link, LinkStoreFields, Widget};
use crate::state::playback::{Motion, Playback};
use crate::state::stage::{frame, trace_of};
use crate::state::transcript::lines;
use controls::{Controls, Help};
use diagram::Diagram;
pub use diagram::ACTORS;
use transcript::Transcript;

/// The CSS breakpoint of the tall diagram. Only the diagram it selects is drawn.
pub const NARROW: &str = "(max-width: 600px)";
/// Longest step of time passed on: a hidden tab or a long pause does not jump ahead.
const MAX_FRAME_MS: f64 = 100.0;

/// The player's one handle. A read puts a [`Playback`] together from where its parts live —
/// the link's step and speed, the trace's length, the player's own [`Motion`] — and a move
/// writes each part back there, so no copy has to be kept in step with another.
#[derive(Clone, Copy)]
pub struct Player {
    now: Memo<Playback>,
    motion: RwSignal<Motion>,
    link: Store<Link>,
}

impl Player {
    /// Reads the player as it is now (tracked).
    pub fn with<R>(self, f: impl FnOnce(&Playback) -> R) -> R {
        self.now.with(f)
    }

    /// Makes a move (play, step, seek, tick, …) and keeps what changed.
    pub fn act(self, f: impl FnOnce(&mut Playback)) {
        let mut p = self.now.get_untracked();
        f(&mut p);
        if self.motion.get_untracked() != p.motion() {
            self.motion.set(p.motion());
        }
        if self.link.with_untracked(|l| (l.step, l.speed)) != (p.step, p.speed) {
            let link = self.link.edit(Widget::RoundTrip);
            if link.step().get_untracked() != p.step {
                link.step().set(p.step);
            }
            if link.speed().get_untracked() != p.speed {
                link.speed().set(p.speed);
            }
        }
    }
}

/// The round trip: the diagram, the player's controls and the transcript, in step.
#[component]
pub fn RoundTrip() -> impl IntoView {
    let link = use_link();
    let trace = Memo::new(move |_| trace_of(link.knobs().get(), link.ending().get()));
    let steps = Memo::new(move |_| trace.with(|t| t.steps.len()));
    let motion = RwSignal::new(Motion::SETTLED);
    let now = Memo::new(move |_| {
        Playback::of(
            link.step().get(),
            steps.get(),
            link.speed().get(),
            motion.get(),
        )
    });
    let player = Player { now, motion, link };
    // The one copy, kept honest: a step past the trace's end (a link's step=99, or an ending
    // with fewer steps) shows the last step, and the link then says so.
    Effect::new(move |_| {
        let last = steps.get().saturating_sub(1);
        if link.step().get() > last {
            link.step().set(last);
        }
    });
    let help_open = RwSignal::new(false);
    let help_button = NodeRef::<leptos::html::Button>::new();
    let narrow = use_media_query(NARROW);
    let reduced_motion = use_media_query("(prefers-reduced-motion: reduce)");
    play_while_playing(player);
    let step = Signal::derive(move || now.with(|p| p.step));
    let later = super::from_next_task();
    let layout = Memo::new(move |_| {
        if narrow.get() {
            Layout::Tall
        } else {
            Layout::Wide
        }
    });
    let frame = Memo::new(move |_| {
        trace.with(|t| now.with(|p| frame(t, p, reduced_motion.get(), layout.get())))
    });
    let shown = Memo::new(move |_| trace.with(|t| lines(t, step.get())));
    focus_back_on_close(help_open, help_button);
    view! {
        <div class="roundtrip-widget" on:keydown=keys(player, help_open)>
            <div class="widget-head">
                <h2 id="roundtrip-h" tabindex="-1">"Two replicas, one deploy, and the ticket in between"</h2>
                <EndingChoice/>
            </div>
            <Caption trace=trace step=step/>
            <div class="roundtrip-body">
                <div class="stage">
                    {move || { let l = layout.get(); view! { <Diagram layout=l frame=frame/> } }}
                    <Controls player=player help_open=help_open help_button=help_button/>
                    <Show when=move || help_open.get()>
                        <Help help_open=help_open/>
                    </Show>
                    <StepVerdict trace=trace step=step/>
                </div>
                // The wire log a task after the diagram.
                <Show when=move || later.get()>
                    <Transcript lines=shown step=step/>
                </Show>
            </div>
        </div>
    }
}

/// One animation-frame loop, running only while playing; the hook cancels it on cleanup. A
/// hidden page does not move the story on.
fn play_while_playing(player: Player) {
    let raf = use_raf_fn_with_options(
        move |a: UseRafFnCallbackArgs| {
            let dt = if document().hidden() {
                0.0
            } else {
                a.delta.clamp(0.0, MAX_FRAME_MS)
            };
            if dt > 0.0 {
                player.act(|p| {
                    p.tick(dt);
                });
            }
        },
        UseRafFnOptions::default().immediate(false),
    );
    Effect::new(move |_| {
        if player.motion.with(|m| m.playing) {
            (raf.resume)();
        } else {
            (raf.pause)();
        }
    });
}

/// Help closes back onto its button, so the focus never lands on nothing.
fn focus_back_on_close(help_open: RwSignal<bool>, help_button: NodeRef<leptos::html::Button>) {
    Effect::new(move |prev: Option<bool>| {
        let open = help_open.get();
        if prev == Some(true) && !open {
            if let Some(b) = help_button.get_untracked() {
                let _ = b.focus();
            }
        }
        open
    });
}

/// The player's keys (space or k, arrows or j and l, Home or 0, ? for help, Escape), except
/// while the reader types in a field.
fn keys(player: Player, help_open: RwSignal<bool>) -> impl Fn(leptos::ev::KeyboardEvent) {
    move |ev: leptos::ev::KeyboardEvent| {
        let tag = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .map(|e| e.tag_name())
            .unwrap_or_default();
        if matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA") {
            return;
        }
        let act: Box<dyn Fn()> = match ev.key().as_str() {
            " " | "k" => Box::new(move || player.act(Playback::toggle)),
            "ArrowRight" | "l" => Box::new(move || player.act(Playback::forward)),
            "ArrowLeft" | "j" => Box::new(move || player.act(Playback::back)),
            "Home" | "0" => Box::new(move || player.act(Playback::restart)),
            "?" => Box::new(move || help_open.update(|o| *o = !*o)),
            "Escape" => Box::new(move || help_open.set(false)),
            _ => return,
        };
        ev.prevent_default();
        act();
    }
}

/// How the story ends: the honest retry, or the ticket edited to prod.
#[component]
fn EndingChoice() -> impl IntoView {
    let link = use_link();
    view! {
        <fieldset class="segmented">
            <legend class="sr-only">"Ending"</legend>
            {[(Ending::Honest, "Honest retry"), (Ending::Tampered, "Ticket edited to prod")].into_iter().map(|(e, label)| view! {
                <label class="seg" class:on=move || link.ending().get() == e>
                    <input type="radio" name="roundtrip-ending" value=e.id()
                        prop:checked=move || link.ending().get() == e
                        on:change=move |_| link.edit(Widget::RoundTrip).ending().set(e)/>
                    {label}
                </label>
            }).collect_view()}
        </fieldset>
    }
}

/// The step's title and caption, said as the story moves.
#[component]
fn Caption(trace: Memo<Trace>, step: Signal<usize>) -> impl IntoView {
    let caption = Memo::new(move |_| {
        trace.with(|t| {
            t.steps
                .get(step.get())
                .map(|s| (s.title.clone(), s.caption.clone()))
                .unwrap_or_default()
        })
    });
    view! {
        <div class="caption" aria-live="polite" data-testid="caption">
            <h3>{move || caption.with(|c| c.0.clone())}</h3>
            <p>{move || caption.with(|c| c.1.clone())}</p>
        </div>
    }
}

/// Replica B's verdict once it has judged. An embed sits still while the reader steps: until
/// B judges, the room of its verdict is held by the last step's, invisible (the caption and
/// the wire scroll inside their boxes).
#[component]
fn StepVerdict(trace: Memo<Trace>, step: Signal<usize>) -> impl IntoView {
    let verdict = Memo::new(move |_| trace.with(|t| t.verdict_by(step.get()).cloned()));
    let embedded = document()
        .document_element()
        .is_some_and(|h| h.has_attribute("data-embed"));
    let reserve = Memo::new(move |_| {
        (embedded && verdict.with(Option::is_none))
            .then(|| trace.with(|t| t.verdict_by(t.steps.len().saturating_sub(1)).cloned()))
            .flatten()
    });
    let seal = move || trace.with(|t| t.seal);
    let harm = move || trace.with(|t| t.harm.clone());
    view! {
        {move || verdict.get().map(|v| view! { <CheckList verdict=v seal=seal() by="Replica B" harm=harm()/> })}
        {move || reserve.get().map(|v| view! {
            <div class="check-list-room" aria-hidden="true">
                <CheckList verdict=v seal=seal() by="Replica B" harm=harm()/>
            </div>
        })}
    }
}
