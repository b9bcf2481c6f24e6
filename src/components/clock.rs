//! The attack bench's clock: one lane per move, its numbered marker the handle you drag (or
//! move with the arrow keys), and the ticket's valid band whose end, the expiry, is a handle
//! too. A move past the axis's end waits at an arrow with its time written out.

use leptos::ev::{KeyboardEvent, PointerEvent};
use leptos::prelude::*;
use mrtr_world::misuse::Move;
use reactive_stores::Store;
use wasm_bindgen::JsCast;

use super::page_link::{use_link, EditLink};
use crate::state::clock_axis::{key_move, place, scale_for, time_at, Place, TTL_MAX, TTL_MIN};
use crate::state::link::{Link, LinkStoreFields, Widget, MAX_TIME_S};

/// What a drag moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handle {
    Ttl,
    Retry(usize),
}

impl Handle {
    /// The seconds the handle can be set to.
    fn range(self) -> (u64, u64) {
        match self {
            Handle::Ttl => (TTL_MIN, TTL_MAX),
            Handle::Retry(_) => (0, MAX_TIME_S),
        }
    }
}

fn set(link: Store<Link>, h: Handle, t: u64) {
    let (min, max) = h.range();
    let t = t.clamp(min, max);
    let link = link.edit(Widget::Bench);
    match h {
        Handle::Ttl => link.knobs().update(|k| k.ttl_s = t),
        Handle::Retry(i) => link.times().update(|x| x[i] = t),
    }
}

/// A place on the track as a CSS percentage (past the end: the end).
fn percent(p: Place) -> String {
    match p {
        Place::On(m) => format!("{}.{}%", m / 10, m % 10),
        Place::Off => "100%".to_owned(),
    }
}

/// The pointer's x inside the track the event's lane belongs to.
fn track_x(ev: &PointerEvent) -> Option<(f64, f64)> {
    let lane = ev.current_target()?.dyn_into::<web_sys::Element>().ok()?;
    let r = lane.get_bounding_client_rect();
    Some((f64::from(ev.client_x()) - r.left(), r.width()))
}

#[component]
pub fn Clock(
    /// Each move's class: `ok`, `harm`, `refused`, `asked`, or `hidden` until predicted.
    tones: Signal<Vec<&'static str>>,
) -> impl IntoView {
    let link = use_link();
    let ttl = Memo::new(move |_| link.knobs().with(|k| k.ttl_s));
    // The axis keeps its scale while a handle is held, so the track does not slide under it.
    let held = RwSignal::new(None::<(Handle, u64)>);
    let scale = Memo::new(move |_| match held.get() {
        Some((_, s)) => s,
        None => scale_for(ttl.get()),
    });
    let value = move |h: Handle| match h {
        Handle::Ttl => ttl.get(),
        Handle::Retry(i) => link.times().with(|x| x[i]),
    };
    let down = move |h: Handle, ev: PointerEvent| {
        // A finger on the lane may be scrolling the page: on touch, only the handle drags.
        let on_handle = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
            .and_then(|e| e.closest(".handle").ok().flatten())
            .is_some();
        if ev.pointer_type() == "touch" && !on_handle {
            return;
        }
        ev.prevent_default();
        let s = scale.get_untracked();
        held.set(Some((h, s)));
        if let Some(el) = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            let _ = el.set_pointer_capture(ev.pointer_id());
        }
        if let Some((x, w)) = track_x(&ev) {
            set(link, h, time_at(x, w, s));
        }
    };
    let moved = move |ev: PointerEvent| {
        if let Some((h, s)) = held.get_untracked() {
            if let Some((x, w)) = track_x(&ev) {
                set(link, h, time_at(x, w, s));
            }
        }
    };
    let up = move |_: PointerEvent| held.set(None);
    let key = move |h: Handle, ev: KeyboardEvent| {
        let (min, max) = h.range();
        if let Some(t) = key_move(&ev.key(), value(h), min, max) {
            ev.prevent_default();
            set(link, h, t);
        }
    };
    let lane = move |h: Handle, label: String, test_id: String| {
        let number = match h {
            Handle::Ttl => String::new(),
            Handle::Retry(i) => (i + 1).to_string(),
        };
        let (min, max) = h.range();
        let off = move || matches!(place(value(h), scale.get()), Place::Off);
        view! {
            <div class=match h { Handle::Ttl => "clock-lane ttl-lane", Handle::Retry(_) => "clock-lane" }
                on:pointerdown=move |ev| down(h, ev) on:pointermove=moved on:pointerup=up on:pointercancel=up>
                <div class="handle" class:off=off style=move || format!("left: {}", percent(place(value(h), scale.get())))
                    role="slider" tabindex="0" aria-label=label aria-valuemin=min aria-valuemax=max
                    aria-valuenow=move || value(h).to_string()
                    aria-valuetext=move || format!("t = {} s", value(h))
                    data-testid=test_id on:keydown=move |ev| key(h, ev)>
                    {match h {
                        Handle::Ttl => view! { <span class="handle-text">{move || format!("expires at {} s", ttl.get())}</span> }.into_any(),
                        Handle::Retry(i) => view! {
                            <span class=move || format!("dot {}", tones.with(|t| t.get(i).copied().unwrap_or("hidden")))>{number.clone()}</span>
                            <span class="handle-text">{move || if off() { format!("t = {} s →", value(h)) } else { format!("{} s", value(h)) }}</span>
                        }.into_any(),
                    }}
                </div>
            </div>
        }
    };
    view! {
        <div class="clock" data-testid="clock">
            <p class="hint">{format!("Marker n is move n below: drag it, or use the arrow keys and Page Up/Down. Green: deployed as asked; amber {}: harm; red: refused; grey: asked again; dashed: not predicted.", mrtr_world::Tone::Harm.glyph())}</p>
            <div class="clock-tracks">
            <div class="clock-inner" style=move || format!("--ttl: {}", percent(place(ttl.get(), scale.get())))>
                <div class="valid-band" aria-hidden="true"></div>
                {lane(Handle::Ttl, "Ticket lifetime (TTL), in seconds".into(), "ttl".into())}
                {Move::ALL.into_iter().enumerate().map(|(i, m)| {
                    lane(Handle::Retry(i), format!("Time of move {}: {}", i + 1, m.label()), format!("time-{i}"))
                }).collect_view()}
                <div class="clock-scale" aria-hidden="true">
                    <span>"0 s: minted"</span>
                    <span>{move || format!("{} s", scale.get())}</span>
                </div>
            </div>
            </div>
        </div>
    }
}
