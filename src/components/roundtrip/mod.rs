//! The two-replica round trip: the ending to play, a caption per step, the diagram, the
//! player and the wire. Its state is a trace from the world (a memo of the link's knobs and
//! ending) and a [`Playback`]; the link follows the player, so every step has a URL.

mod controls;
mod diagram;
mod transcript;

use leptos::prelude::*;
use leptos_use::{use_media_query, use_raf_fn_with_options, UseRafFnCallbackArgs, UseRafFnOptions};
use mrtr_world::Ending;

use super::CheckList;
use crate::state::geometry::Layout;
use crate::state::link::Link;
use crate::state::playback::Playback;
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

#[component]
pub fn RoundTrip(link: RwSignal<Link>) -> impl IntoView {
    let knobs = Memo::new(move |_| link.with(|l| (l.knobs, l.ending)));
    let trace = Memo::new(move |_| {
        let (k, e) = knobs.get();
        trace_of(k, e)
    });
    let playback = RwSignal::new(link.with_untracked(|l| {
        Playback::at(l.step, trace.with_untracked(|t| t.steps.len()), l.speed)
    }));
    let help_open = RwSignal::new(false);
    let help_button = NodeRef::<leptos::html::Button>::new();
    let narrow = use_media_query(NARROW);
    let reduced_motion = use_media_query("(prefers-reduced-motion: reduce)");

    // A new trace (another ending or other knobs) keeps the step in range.
    Effect::new(move |_| {
        let n = trace.with(|t| t.steps.len()).max(1);
        if playback.with_untracked(|p| p.steps != n) {
            playback.update(|p| {
                p.steps = n;
                p.step = p.step.min(n - 1);
            });
        }
    });
    // The link follows the player and the ending...
    Effect::new(move |_| {
        let (step, speed) = playback.with(|p| (p.step, p.speed));
        if link.with_untracked(|l| (l.step, l.speed) != (step, speed)) {
            link.update(|l| {
                l.step = step;
                l.speed = speed;
            });
        }
    });
    // ...and the player follows a link from outside, unless it is playing.
    Effect::new(move |_| {
        let (step, speed) = link.with(|l| (l.step, l.speed));
        let differs = playback.with_untracked(|p| {
            !p.playing && (p.step, p.speed) != (step.min(p.steps.saturating_sub(1)), speed)
        });
        if differs {
            playback.update(|p| {
                p.seek(step);
                p.set_speed(speed);
            });
        }
    });

    // One animation-frame loop, running only while playing; the hook cancels it on cleanup.
    let raf = use_raf_fn_with_options(
        move |a: UseRafFnCallbackArgs| {
            let hidden = document().hidden();
            let dt = if hidden {
                0.0
            } else {
                a.delta.clamp(0.0, MAX_FRAME_MS)
            };
            if dt > 0.0 {
                playback.update(|p| {
                    p.tick(dt);
                });
            }
        },
        UseRafFnOptions::default().immediate(false),
    );
    Effect::new(move |_| {
        if playback.with(|p| p.playing) {
            (raf.resume)();
        } else {
            (raf.pause)();
        }
    });

    let step = Signal::derive(move || playback.with(|p| p.step));
    let later = super::from_next_task();
    let layout = Memo::new(move |_| {
        if narrow.get() {
            Layout::Tall
        } else {
            Layout::Wide
        }
    });
    let frame = Memo::new(move |_| {
        trace.with(|t| playback.with(|p| frame(t, p, reduced_motion.get(), layout.get())))
    });
    let shown = Memo::new(move |_| trace.with(|t| lines(t, step.get())));
    let caption = Memo::new(move |_| {
        trace.with(|t| {
            t.steps
                .get(step.get())
                .map(|s| (s.title.clone(), s.caption.clone()))
                .unwrap_or_default()
        })
    });
    let verdict = Memo::new(move |_| trace.with(|t| t.verdict_by(step.get()).cloned()));
    // An embed sits still while the reader steps: until B judges, the room of its verdict is
    // held by the last step's, invisible (the caption and the wire scroll inside their boxes).
    let embedded = document()
        .document_element()
        .is_some_and(|h| h.has_attribute("data-embed"));
    let reserve = Memo::new(move |_| {
        (embedded && verdict.with(Option::is_none))
            .then(|| trace.with(|t| t.verdict_by(t.steps.len().saturating_sub(1)).cloned()))
            .flatten()
    });

    // Help closes back onto its button, so the focus never lands on nothing.
    Effect::new(move |prev: Option<bool>| {
        let open = help_open.get();
        if prev == Some(true) && !open {
            if let Some(b) = help_button.get_untracked() {
                let _ = b.focus();
            }
        }
        open
    });

    let on_key = move |ev: leptos::ev::KeyboardEvent| {
        let tag = ev
            .target()
            .and_then(|t| wasm_bindgen::JsCast::dyn_into::<web_sys::Element>(t).ok())
            .map(|e| e.tag_name())
            .unwrap_or_default();
        if matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA") {
            return;
        }
        let act: Box<dyn Fn()> = match ev.key().as_str() {
            " " | "k" => Box::new(move || playback.update(Playback::toggle)),
            "ArrowRight" | "l" => Box::new(move || playback.update(Playback::forward)),
            "ArrowLeft" | "j" => Box::new(move || playback.update(Playback::back)),
            "Home" | "0" => Box::new(move || playback.update(Playback::restart)),
            "?" => Box::new(move || help_open.update(|o| *o = !*o)),
            "Escape" => Box::new(move || help_open.set(false)),
            _ => return,
        };
        ev.prevent_default();
        act();
    };
    let set_ending = move |e: Ending| {
        link.update(|l| l.ending = e);
    };

    view! {
        <div class="roundtrip-widget" on:keydown=on_key>
            <div class="widget-head">
                <h2 id="roundtrip-h" tabindex="-1">"Two replicas, one deploy, and the ticket in between"</h2>
                <fieldset class="segmented">
                    <legend class="sr-only">"Ending"</legend>
                    {[(Ending::Honest, "Honest retry"), (Ending::Tampered, "Ticket edited to prod")].into_iter().map(|(e, label)| view! {
                        <label class=move || if link.with(|l| l.ending == e) { "seg on" } else { "seg" }>
                            <input type="radio" name="roundtrip-ending" value=e.id()
                                prop:checked=move || link.with(|l| l.ending == e)
                                on:change=move |_| set_ending(e)/>
                            {label}
                        </label>
                    }).collect_view()}
                </fieldset>
            </div>
            <div class="caption" aria-live="polite" data-testid="caption">
                <h3>{move || caption.with(|c| c.0.clone())}</h3>
                <p>{move || caption.with(|c| c.1.clone())}</p>
            </div>
            <div class="roundtrip-body">
                <div class="stage">
                    {move || { let l = layout.get(); view! { <Diagram layout=l frame=frame/> } }}
                    <Controls playback=playback help_open=help_open help_button=help_button/>
                    <Show when=move || help_open.get()>
                        <Help help_open=help_open/>
                    </Show>
                    {move || verdict.get().map(|v| view! { <CheckList verdict=v seal=trace.with(|t| t.seal) by="Replica B" harm=trace.with(|t| t.harm.clone())/> })}
                    {move || reserve.get().map(|v| view! {
                        <div class="check-list-room" aria-hidden="true">
                            <CheckList verdict=v seal=trace.with(|t| t.seal) by="Replica B" harm=trace.with(|t| t.harm.clone())/>
                        </div>
                    })}
                </div>
                // The wire log a task after the diagram.
                <Show when=move || later.get()>
                    <Transcript lines=shown step=step/>
                </Show>
            </div>
        </div>
    }
}
