//! The two-replica round trip: a diagram, a transcript, the checks, and a player.

mod controls;
mod diagram;
mod transcript;

use leptos::prelude::*;
use mrtr_world::geometry::Layout;
use mrtr_world::{round_trip, Ending, EventKind, Trace};

use crate::components::CheckList;
use crate::state::frames::use_frame_loop;
use crate::state::link::Link;
use crate::state::playback::Playback;
use controls::Controls;
use diagram::Diagram;
use transcript::Transcript;

fn prefers_reduced_motion() -> bool {
    web_sys::window()
        .and_then(|w| {
            w.match_media("(prefers-reduced-motion: reduce)")
                .ok()
                .flatten()
        })
        .map(|m| m.matches())
        .unwrap_or(false)
}

/// Whether the phone layout applies (the CSS breakpoint of the tall diagram), kept current.
/// Only that diagram is drawn: half the start-up work of drawing both and hiding one.
fn use_narrow() -> ReadSignal<bool> {
    const QUERY: &str = "(max-width: 600px)";
    let list = web_sys::window().and_then(|w| w.match_media(QUERY).ok().flatten());
    let (narrow, set_narrow) = signal(list.as_ref().is_some_and(|m| m.matches()));
    if let Some(list) = list {
        let on_change = wasm_bindgen::closure::Closure::<dyn FnMut()>::new(move || {
            if let Some(m) = web_sys::window().and_then(|w| w.match_media(QUERY).ok().flatten()) {
                let _ = set_narrow.try_set(m.matches());
            }
        });
        let _ = list.add_event_listener_with_callback(
            "change",
            wasm_bindgen::JsCast::unchecked_ref(on_change.as_ref()),
        );
        // The widget lives as long as the page.
        on_change.forget();
    }
    narrow
}

#[component]
pub fn RoundTrip(link: RwSignal<Link>) -> impl IntoView {
    let knobs = Memo::new(move |_| link.with(|l| l.knobs));
    let ending = Memo::new(move |_| link.with(|l| l.ending));
    let trace: Memo<Trace> = Memo::new(move |_| round_trip(knobs.get(), ending.get()));
    let steps = move || trace.with(|t| t.steps.len());
    let start = link.with_untracked(|l| (l.step, l.speed));
    let playback = RwSignal::new(Playback::at(
        start.0,
        trace.with_untracked(|t| t.steps.len()),
        start.1,
    ));
    let reduced_motion = prefers_reduced_motion();
    let narrow = use_narrow();
    let help_open = RwSignal::new(false);

    // A new trace (other ending or knobs) may have another length: keep the step in range.
    Effect::new(move |_| {
        let n = steps();
        // maybe_update notifies only on a real change, so these effects cannot ping-pong.
        playback.maybe_update(|p| {
            let before = (p.steps, p.step);
            p.steps = n.max(1);
            p.step = p.step.min(p.steps - 1);
            before != (p.steps, p.step)
        });
    });
    // The link follows the step and speed, so every state has a URL.
    Effect::new(move |_| {
        let (step, speed) = playback.with(|p| (p.step, p.speed));
        link.maybe_update(|l| {
            let changed = (l.step, l.speed) != (step, speed);
            l.step = step;
            l.speed = speed;
            changed
        });
    });
    // A link edited by hand moves the player.
    Effect::new(move |_| {
        let (step, speed) = link.with(|l| (l.step, l.speed));
        playback.maybe_update(|p| {
            let changed = !p.playing && (p.step, p.speed) != (step.min(p.steps - 1), speed);
            if changed {
                p.seek(step);
                p.set_speed(speed);
            }
            changed
        });
    });

    let frames = use_frame_loop(move |dt| {
        let _ = playback.try_update(|p| p.tick(dt));
    });
    Effect::new(move |_| {
        if playback.with(|p| p.playing) {
            frames.start();
        } else {
            frames.stop();
        }
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
        let handled = match ev.key().as_str() {
            " " | "k" => {
                playback.update(Playback::toggle);
                true
            }
            "ArrowRight" | "l" => {
                playback.update(Playback::forward);
                true
            }
            "ArrowLeft" | "j" => {
                playback.update(Playback::back);
                true
            }
            "Home" | "0" => {
                playback.update(Playback::restart);
                true
            }
            "?" => {
                help_open.update(|o| *o = !*o);
                true
            }
            "Escape" => {
                help_open.set(false);
                true
            }
            _ => false,
        };
        if handled {
            ev.prevent_default();
        }
    };

    let step_index = Memo::new(move |_| playback.with(|p| p.step));
    let caption = Memo::new(move |_| {
        let i = step_index.get();
        trace.with(|t| {
            t.steps
                .get(i)
                .map(|s| (s.title.clone(), s.caption.clone()))
                .unwrap_or_default()
        })
    });
    // B's verdict, once the story has reached the step where B checks.
    let verdict = Memo::new(move |_| {
        let i = step_index.get();
        trace.with(|t| {
            let end = t.steps.get(i).map(|s| s.events.end).unwrap_or(0);
            t.events[..end].iter().find_map(|e| match &e.kind {
                EventKind::Checked { verdict, .. } => Some(verdict.clone()),
                _ => None,
            })
        })
    });

    view! {
        <section class="card widget roundtrip" id="roundtrip" aria-labelledby="roundtrip-h" data-testid="roundtrip" on:keydown=on_key>
            <div class="widget-head">
                <h2 id="roundtrip-h" tabindex="-1">"Two replicas, one deploy, and the ticket in between"</h2>
                <fieldset class="segmented">
                    <legend class="sr-only">"Ending"</legend>
                    {[Ending::Honest, Ending::Tampered].into_iter().map(|e| {
                        let label = match e { Ending::Honest => "Honest retry", Ending::Tampered => "Ticket edited to prod" };
                        view! {
                            <label class=move || if ending.get() == e { "seg on" } else { "seg" }>
                                <input type="radio" name="roundtrip-ending" value=e.id()
                                    prop:checked=move || ending.get() == e
                                    on:change=move |_| link.update(|l| l.ending = e)/>
                                {label}
                            </label>
                        }
                    }).collect_view()}
                </fieldset>
            </div>
            <div class="caption" aria-live="polite" data-testid="caption">
                <h3>{move || caption.get().0}</h3>
                <p>{move || caption.get().1}</p>
            </div>
            <div class="roundtrip-body">
                <div class="stage">
                    {move || {
                        let layout = if narrow.get() { Layout::Tall } else { Layout::Wide };
                        view! { <Diagram trace=trace playback=playback reduced_motion=reduced_motion layout=layout/> }
                    }}
                    <Controls playback=playback help_open=help_open/>
                    {move || verdict.get().map(|v| view! { <CheckList verdict=v by="Replica B"/> })}
                </div>
                <Transcript trace=trace step=step_index/>
            </div>
        </section>
    }
}
