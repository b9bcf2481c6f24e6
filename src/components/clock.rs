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

/// The clock's state, shared by its lanes: the link's times and lifetime, and the handle
/// held with the scale the axis keeps while it is (so the track does not slide under it).
#[derive(Clone, Copy)]
struct Dial {
    link: Store<Link>,
    ttl: Memo<u64>,
    held: RwSignal<Option<(Handle, u64)>>,
    scale: Memo<u64>,
}

impl Dial {
    fn new(link: Store<Link>) -> Dial {
        let ttl = Memo::new(move |_| link.knobs().with(|k| k.ttl_s));
        let held = RwSignal::new(None::<(Handle, u64)>);
        let scale = Memo::new(move |_| match held.get() {
            Some((_, s)) => s,
            None => scale_for(ttl.get()),
        });
        Dial {
            link,
            ttl,
            held,
            scale,
        }
    }

    /// The seconds `h` is set to.
    fn value(self, h: Handle) -> u64 {
        match h {
            Handle::Ttl => self.ttl.get(),
            Handle::Retry(i) => self.link.times().with(|x| x[i]),
        }
    }

    /// A press on `h`'s lane takes the handle there.
    fn down(self, h: Handle, ev: PointerEvent) {
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
        let s = self.scale.get_untracked();
        self.held.set(Some((h, s)));
        if let Some(el) = ev
            .current_target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        {
            let _ = el.set_pointer_capture(ev.pointer_id());
        }
        if let Some((x, w)) = track_x(&ev) {
            set(self.link, h, time_at(x, w, s));
        }
    }

    /// The held handle follows the pointer.
    fn moved(self, ev: PointerEvent) {
        if let Some((h, s)) = self.held.get_untracked() {
            if let Some((x, w)) = track_x(&ev) {
                set(self.link, h, time_at(x, w, s));
            }
        }
    }

    /// The arrow keys and Page Up/Down move `h`.
    fn key(self, h: Handle, ev: KeyboardEvent) {
        let (min, max) = h.range();
        if let Some(t) = key_move(&ev.key(), self.value(h), min, max) {
            ev.prevent_default();
            set(self.link, h, t);
        }
    }
}

/// One lane of the clock: its handle, a slider for keyboards and screen readers.
#[component]
fn Lane(
    dial: Dial,
    h: Handle,
    label: String,
    test_id: String,
    tones: Signal<Vec<&'static str>>,
) -> impl IntoView {
    let number = match h {
        Handle::Ttl => String::new(),
        Handle::Retry(i) => (i + 1).to_string(),
    };
    let (min, max) = h.range();
    let value = move || dial.value(h);
    let off = move || matches!(place(value(), dial.scale.get()), Place::Off);
    let up = move |_: PointerEvent| dial.held.set(None);
    view! {
        <div class=match h { Handle::Ttl => "clock-lane ttl-lane", Handle::Retry(_) => "clock-lane" }
            on:pointerdown=move |ev| dial.down(h, ev) on:pointermove=move |ev| dial.moved(ev) on:pointerup=up on:pointercancel=up>
            <div class="handle" class:off=off style=move || format!("left: {}", percent(place(value(), dial.scale.get())))
                role="slider" tabindex="0" aria-label=label aria-valuemin=min aria-valuemax=max
                aria-valuenow=move || value().to_string()
                aria-valuetext=move || format!("t = {} s", value())
                data-testid=test_id on:keydown=move |ev| dial.key(h, ev)>
                {match h {
                    Handle::Ttl => view! { <span class="handle-text">{move || format!("expires at {} s", dial.ttl.get())}</span> }.into_any(),
                    Handle::Retry(i) => view! {
                        <span class=move || format!("dot {}", tones.with(|t| t.get(i).copied().unwrap_or("hidden")))>{number.clone()}</span>
                        <span class="handle-text">{move || if off() { format!("t = {} s →", value()) } else { format!("{} s", value()) }}</span>
                    }.into_any(),
                }}
            </div>
        </div>
    }
}

#[component]
pub fn Clock(
    /// Each move's class: `ok`, `harm`, `refused`, `asked`, or `hidden` until predicted.
    tones: Signal<Vec<&'static str>>,
) -> impl IntoView {
    let dial = Dial::new(use_link());
    let (ttl, scale) = (dial.ttl, dial.scale);
    view! {
        <div class="clock" data-testid="clock">
            <p class="hint">{format!("Marker n is move n below: drag it, or use the arrow keys and Page Up/Down. Green: deployed as asked; amber {}: harm; red: refused; grey: asked again; dashed: not predicted.", mrtr_world::Tone::Harm.glyph())}</p>
            <div class="clock-tracks">
            <div class="clock-inner" style=move || format!("--ttl: {}", percent(place(ttl.get(), scale.get())))>
                <div class="valid-band" aria-hidden="true"></div>
                <Lane dial h=Handle::Ttl label="Ticket lifetime (TTL), in seconds".into() test_id="ttl".into() tones/>
                {Move::ALL.into_iter().enumerate().map(|(i, m)| view! {
                    <Lane dial h=Handle::Retry(i) label=format!("Time of move {}: {}", i + 1, m.label()) test_id=format!("time-{i}") tones/>
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
