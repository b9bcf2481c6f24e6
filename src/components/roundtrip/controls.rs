//! The player: restart, step, play or pause, scrub, speed, and the keyboard help.

use leptos::prelude::*;

use super::Player;
use crate::state::playback::{parse_speed, speed_text, Playback, SPEEDS};

/// A small filled icon; decorative (the button has the label).
fn icon(d: &'static str) -> impl IntoView {
    view! {
        <svg class="icon" viewBox="0 0 24 24" width="16" height="16" aria-hidden="true" focusable="false"><path d=d fill="currentColor"/></svg>
    }
}

#[component]
pub fn Controls(
    player: Player,
    help_open: RwSignal<bool>,
    help_button: NodeRef<leptos::html::Button>,
) -> impl IntoView {
    let play = move |f: fn(&mut Playback)| move |_| player.act(f);
    view! {
        <div class="controls" role="group" aria-label="Playback">
            <button type="button" aria-label="Restart" title="Restart (Home)" on:click=play(Playback::restart)>{icon("M5 4v16M19 4 8 12l11 8z")}</button>
            <button type="button" aria-label="Step back" title="Step back (←)" data-testid="back" on:click=play(Playback::back)>{icon("M18 4 6 12l12 8z")}</button>
            <button type="button" class="primary" title="Play or pause (space)" data-testid="play"
                aria-label=move || if player.with(|p| p.playing) { "Pause" } else { "Play" }
                on:click=play(Playback::toggle)>
                {move || if player.with(|p| p.playing) {
                    view! { {icon("M6 4h4v16H6zM14 4h4v16h-4z")}" Pause" }.into_any()
                } else {
                    view! { {icon("M7 4l13 8-13 8z")}" Play" }.into_any()
                }}
            </button>
            <button type="button" aria-label="Step forward" title="Step forward (→)" data-testid="forward" on:click=play(Playback::forward)>{icon("M6 4l12 8-12 8z")}</button>
            <label class="scrub"><span class="sr-only">"Step"</span>
                <input type="range" min="0" step="1"
                    prop:max=move || player.with(|p| p.steps.saturating_sub(1).to_string())
                    prop:value=move || player.with(|p| p.step.to_string())
                    aria-valuetext=move || player.with(|p| format!("step {} of {}", p.step + 1, p.steps))
                    on:input=move |ev| { if let Ok(s) = event_target_value(&ev).parse::<usize>() { player.act(|p| p.seek(s)) } }/>
            </label>
            <span class="step-count" data-testid="step-count">{move || player.with(|p| format!("{} / {}", p.step + 1, p.steps))}</span>
            <label class="speed">"Speed "
                <select prop:value=move || player.with(|p| speed_text(p.speed))
                    on:change=move |ev| { if let Some(s) = parse_speed(&event_target_value(&ev)) { player.act(|p| p.set_speed(s)) } }>
                    {SPEEDS.into_iter().map(|s| { let t = speed_text(s); view! { <option value=t>{format!("{t}×")}</option> } }).collect_view()}
                </select>
            </label>
            <button type="button" class="help-toggle" node_ref=help_button aria-controls="roundtrip-help" title="Keyboard shortcuts (?)"
                aria-expanded=move || help_open.get().to_string()
                on:click=move |_| help_open.update(|o| *o = !*o)>"?"</button>
        </div>
    }
}

/// The keyboard help, below the controls while it is open; the focus goes into it and back.
#[component]
pub fn Help(help_open: RwSignal<bool>) -> impl IntoView {
    let close = NodeRef::<leptos::html::Button>::new();
    Effect::new(move |_| {
        if let Some(b) = close.get() {
            let _ = b.focus();
        }
    });
    view! {
        <div class="help" id="roundtrip-help" role="dialog" aria-label="Keyboard shortcuts" data-testid="help">
            <h4>"Keyboard"</h4>
            <dl>
                <dt><kbd>"Space"</kbd></dt><dd>"play or pause"</dd>
                <dt><kbd>"→"</kbd>" "<kbd>"←"</kbd></dt><dd>"step forward or back"</dd>
                <dt><kbd>"Home"</kbd></dt><dd>"back to the start"</dd>
                <dt><kbd>"?"</kbd></dt><dd>"show or hide this help"</dd>
            </dl>
            <p>"Shortcuts work while focus is inside the widget. With reduced motion, the widget steps without moving messages."</p>
            <button type="button" node_ref=close on:click=move |_| help_open.set(false)>"Close"</button>
        </div>
    }
}
