use leptos::prelude::*;

use crate::state::playback::{parse_speed, speed_text, Playback, SPEEDS};

/// Play, pause, step, scrub, speed and the keyboard help.
#[component]
pub fn Controls(playback: RwSignal<Playback>, help_open: RwSignal<bool>) -> impl IntoView {
    let steps = move || playback.with(|p| p.steps);
    let step = move || playback.with(|p| p.step);
    let playing = move || playback.with(|p| p.playing);
    let close_ref = NodeRef::<leptos::html::Button>::new();
    let toggle_ref = NodeRef::<leptos::html::Button>::new();
    // Focus goes into the help when it opens and back to its button when it closes, so the
    // keyboard never lands on a removed element.
    Effect::new(move |was_open: Option<bool>| {
        let open = help_open.get();
        if open {
            if let Some(b) = close_ref.get() {
                let _ = b.focus();
            }
        } else if was_open == Some(true) {
            if let Some(b) = toggle_ref.get() {
                let _ = b.focus();
            }
        }
        open
    });
    view! {
        <div class="controls" role="group" aria-label="Playback">
            <button type="button" on:click=move |_| playback.update(Playback::restart) aria-label="Restart" title="Restart (Home)"><Icon d="M5 4v16M19 4 8 12l11 8z"/></button>
            <button type="button" on:click=move |_| playback.update(Playback::back) aria-label="Step back" title="Step back (←)" data-testid="back"><Icon d="M18 4 6 12l12 8z"/></button>
            <button type="button" class="primary" on:click=move |_| playback.update(Playback::toggle)
                aria-label=move || if playing() { "Pause" } else { "Play" } title="Play or pause (space)" data-testid="play">
                {move || if playing() {
                    view! { <Icon d="M6 4h4v16H6zM14 4h4v16h-4z"/>" Pause" }.into_any()
                } else {
                    view! { <Icon d="M7 4l13 8-13 8z"/>" Play" }.into_any()
                }}
            </button>
            <button type="button" on:click=move |_| playback.update(Playback::forward) aria-label="Step forward" title="Step forward (→)" data-testid="forward"><Icon d="M6 4l12 8-12 8z"/></button>
            <label class="scrub">
                <span class="sr-only">"Step"</span>
                <input type="range" min="0" max=move || steps().saturating_sub(1) step="1"
                    prop:value=move || step().to_string()
                    aria-valuetext=move || format!("step {} of {}", step() + 1, steps())
                    on:input=move |ev| {
                        if let Ok(s) = event_target_value(&ev).parse::<usize>() {
                            playback.update(|p| p.seek(s));
                        }
                    }/>
            </label>
            <span class="step-count" data-testid="step-count">{move || format!("{} / {}", step() + 1, steps())}</span>
            <label class="speed">"Speed "
                <select on:change=move |ev| {
                    if let Some(s) = parse_speed(&event_target_value(&ev)) {
                        playback.update(|p| p.set_speed(s));
                    }
                }>
                    {SPEEDS.into_iter().map(|s| view! {
                        <option value=speed_text(s) selected=move || playback.with(|p| p.speed == s)>{format!("{}×", speed_text(s))}</option>
                    }).collect_view()}
                </select>
            </label>
            <button type="button" node_ref=toggle_ref on:click=move |_| help_open.update(|o| *o = !*o) aria-expanded=move || help_open.get().to_string() aria-controls="roundtrip-help" title="Keyboard shortcuts (?)">"?"</button>
        </div>
        <Show when=move || help_open.get()>
            <div class="help" id="roundtrip-help" role="dialog" aria-label="Keyboard shortcuts" data-testid="help">
                <h4>"Keyboard"</h4>
                <dl>
                    <dt><kbd>"Space"</kbd></dt><dd>"play or pause"</dd>
                    <dt><kbd>"→"</kbd>" "<kbd>"←"</kbd></dt><dd>"step forward or back"</dd>
                    <dt><kbd>"Home"</kbd></dt><dd>"back to the start"</dd>
                    <dt><kbd>"?"</kbd></dt><dd>"show or hide this help"</dd>
                </dl>
                <p>"Shortcuts work while focus is inside the widget. With reduced motion, the widget steps without moving messages."</p>
                <button type="button" node_ref=close_ref on:click=move |_| help_open.set(false)>"Close"</button>
            </div>
        </Show>
    }
}

/// A small filled icon; decorative (the button has the label).
#[component]
fn Icon(d: &'static str) -> impl IntoView {
    view! {
        <svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false">
            <path d=d fill="currentColor"/>
        </svg>
    }
}
