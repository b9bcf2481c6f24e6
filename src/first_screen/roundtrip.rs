//! The two-replica round trip: a diagram, a transcript, the checks, and a player. The state is
//! a [`Trace`] from the world and a [`Playback`]; [`RoundTrip::render`] writes what changed into
//! the DOM (never the same text twice, so the live caption speaks once per step).

use std::cell::RefCell;
use std::rc::{Rc, Weak};

use mrtr_world::geometry::Layout;
use mrtr_world::{round_trip, Ending, Knobs, Trace};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::dom::{
    document, find, find_all, listen, matches_media, next_frame, on_media_change,
    prefers_reduced_motion, target_element, window,
};
use super::link::SharedLink;
use crate::markup::{self, ACTORS};
use crate::state::link::Link;
use crate::state::playback::{parse_speed, speed_text, Playback};
use crate::state::stage::{frame, Frame, EDGES};
use crate::state::transcript::lines;

/// The CSS breakpoint of the tall diagram. Only the diagram it selects is drawn.
const NARROW: &str = "(max-width: 600px)";

/// Longest step of time passed on: a hidden tab or a long pause does not jump ahead.
const MAX_FRAME_MS: f64 = 100.0;

type FrameCallback = Closure<dyn FnMut(f64)>;

/// The diagram on screen and its parts, in the order of [`EDGES`] and [`ACTORS`].
struct Drawn {
    svg: web_sys::Element,
    layout: Layout,
    edges: Vec<web_sys::Element>,
    actors: Vec<web_sys::Element>,
    notes: Vec<web_sys::Element>,
}

/// What the widget shows, and what it has written so far (to write only what changed).
struct State {
    knobs: Knobs,
    ending: Ending,
    trace: Trace,
    /// Counts new traces, so what was drawn from an old one is redrawn.
    generation: u32,
    playback: Playback,
    narrow: bool,
    help_open: bool,
    drawn: Option<Drawn>,
    shown_frame: Option<Frame>,
    /// The trace's generation and the step the caption, checks and transcript show.
    shown_step: Option<(u32, usize)>,
    shown_controls: Option<(usize, usize, bool, &'static str, Ending)>,
    shown_help: bool,
    /// The animation frame asked for, and the time of the last one.
    frame_handle: Option<i32>,
    last_ts: Option<f64>,
}

/// The widget's elements, found once.
struct Parts {
    section: web_sys::Element,
    stage: web_sys::Element,
    caption_title: web_sys::Element,
    caption_text: web_sys::Element,
    radios: Vec<web_sys::HtmlInputElement>,
    play: web_sys::Element,
    range: web_sys::HtmlInputElement,
    count: web_sys::Element,
    speed: web_sys::HtmlSelectElement,
    help_button: web_sys::HtmlElement,
    controls: web_sys::Element,
    messages: web_sys::Element,
}

pub struct RoundTrip {
    link: Rc<SharedLink>,
    parts: Parts,
    reduced_motion: bool,
    state: RefCell<State>,
    /// The one animation-frame callback; it holds the widget weakly.
    on_frame: RefCell<Option<FrameCallback>>,
}

fn found<T: JsCast>(within: &web_sys::Element, selector: &str) -> Option<T> {
    find(within, selector)?.dyn_into().ok()
}

impl RoundTrip {
    /// Draws the widget at the end of `container` and starts it from the link.
    pub fn mount(container: &web_sys::Element, link: Rc<SharedLink>) -> Option<Rc<RoundTrip>> {
        container
            .insert_adjacent_html("beforeend", &markup::round_trip())
            .ok()?;
        let section = find(container, "section.roundtrip")?;
        let parts = Parts {
            stage: find(&section, ".stage")?,
            caption_title: find(&section, ".caption h3")?,
            caption_text: find(&section, ".caption p")?,
            radios: find_all(&section, "input[type=radio]")
                .into_iter()
                .filter_map(|e| e.dyn_into().ok())
                .collect(),
            play: find(&section, "[data-act=play]")?,
            range: found(&section, "input[type=range]")?,
            count: find(&section, ".step-count")?,
            speed: found(&section, "select")?,
            help_button: found(&section, "[data-act=help]")?,
            controls: find(&section, ".controls")?,
            messages: find(&section, "ol.messages")?,
            section,
        };
        let l = link.get();
        let trace = round_trip(l.knobs, l.ending);
        let playback = Playback::at(l.step, trace.steps.len(), l.speed);
        let rt = Rc::new(RoundTrip {
            link,
            parts,
            reduced_motion: prefers_reduced_motion(),
            state: RefCell::new(State {
                knobs: l.knobs,
                ending: l.ending,
                trace,
                generation: 0,
                playback,
                narrow: matches_media(NARROW),
                help_open: false,
                drawn: None,
                shown_frame: None,
                shown_step: None,
                shown_controls: None,
                shown_help: false,
                frame_handle: None,
                last_ts: None,
            }),
            on_frame: RefCell::new(None),
        });
        rt.wire();
        rt.changed();
        Some(rt)
    }

    fn wire(self: &Rc<Self>) {
        // The listeners own the widget (as the page's DOM owns them); the frame callback and the
        // link's subscription only refer to it.
        let section = &self.parts.section;
        let rt = Rc::clone(self);
        listen(section, "click", move |ev| {
            let act = target_element(&ev)
                .and_then(|t| t.closest("[data-act]").ok().flatten())
                .and_then(|b| b.get_attribute("data-act"));
            match act.as_deref() {
                Some("restart") => rt.play(Playback::restart),
                Some("back") => rt.play(Playback::back),
                Some("play") => rt.play(Playback::toggle),
                Some("forward") => rt.play(Playback::forward),
                Some("help") => rt.toggle_help(),
                Some("close-help") => rt.set_help(false),
                _ => {}
            }
        });
        let rt = Rc::clone(self);
        listen(section, "change", move |ev| {
            let Some(t) = target_element(&ev) else { return };
            if let Some(radio) = t.dyn_ref::<web_sys::HtmlInputElement>() {
                if radio.type_() == "radio" {
                    let ending = Ending::from_id(&radio.value()).unwrap_or(Ending::Honest);
                    rt.set_ending(ending);
                }
            } else if let Some(select) = t.dyn_ref::<web_sys::HtmlSelectElement>() {
                if let Some(s) = parse_speed(&select.value()) {
                    rt.play(|p| p.set_speed(s));
                }
            }
        });
        let rt = Rc::clone(self);
        listen(section, "input", move |ev| {
            let Some(range) = target_element(&ev)
                .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
                .filter(|i| i.type_() == "range")
            else {
                return;
            };
            if let Ok(s) = range.value().parse::<usize>() {
                rt.play(|p| p.seek(s));
            }
        });
        let rt = Rc::clone(self);
        listen(section, "keydown", move |ev| {
            let Some(key) = ev.dyn_ref::<web_sys::KeyboardEvent>() else {
                return;
            };
            let tag = target_element(&ev)
                .map(|e| e.tag_name())
                .unwrap_or_default();
            if matches!(tag.as_str(), "INPUT" | "SELECT" | "TEXTAREA") {
                return;
            }
            let k = key.key();
            let act: fn(&RoundTrip) = match k.as_str() {
                " " | "k" => |rt| rt.play(Playback::toggle),
                "ArrowRight" | "l" => |rt| rt.play(Playback::forward),
                "ArrowLeft" | "j" => |rt| rt.play(Playback::back),
                "Home" | "0" => |rt| rt.play(Playback::restart),
                "?" => RoundTrip::toggle_help,
                "Escape" => |rt| rt.set_help(false),
                _ => return,
            };
            ev.prevent_default();
            act(&rt);
        });
        let rt = Rc::clone(self);
        on_media_change(NARROW, move |narrow| {
            rt.state.borrow_mut().narrow = narrow;
            rt.render();
        });
        // A link changed elsewhere (the other module, or the reader) moves the widget.
        let weak = Rc::downgrade(self);
        self.link.subscribe(move |l| {
            if let Some(rt) = weak.upgrade() {
                rt.follow(l);
            }
        });
        let weak: Weak<RoundTrip> = Rc::downgrade(self);
        *self.on_frame.borrow_mut() = Some(Closure::new(move |ts: f64| {
            if let Some(rt) = weak.upgrade() {
                rt.tick(ts);
            }
        }));
    }

    /// Changes the player, then the link and the screen follow.
    fn play(&self, f: impl FnOnce(&mut Playback)) {
        f(&mut self.state.borrow_mut().playback);
        self.changed();
    }

    fn toggle_help(&self) {
        let open = self.state.borrow().help_open;
        self.set_help(!open);
    }

    fn set_help(&self, open: bool) {
        self.state.borrow_mut().help_open = open;
        self.render();
    }

    fn set_ending(&self, ending: Ending) {
        let knobs = self.state.borrow().knobs;
        self.retrace(knobs, ending);
        self.changed();
    }

    /// A new trace when the knobs or ending changed; the step stays in range.
    fn retrace(&self, knobs: Knobs, ending: Ending) {
        let mut s = self.state.borrow_mut();
        if s.knobs == knobs && s.ending == ending {
            return;
        }
        s.trace = round_trip(knobs, ending);
        s.knobs = knobs;
        s.ending = ending;
        s.generation += 1;
        let n = s.trace.steps.len().max(1);
        s.playback.steps = n;
        s.playback.step = s.playback.step.min(n - 1);
    }

    /// The link follows the widget (so every state has a URL); then the screen.
    fn changed(&self) {
        let (ending, step, speed) = {
            let s = self.state.borrow();
            (s.ending, s.playback.step, s.playback.speed)
        };
        self.link.update(|l| {
            l.ending = ending;
            l.step = step;
            l.speed = speed;
        });
        self.render();
        self.keep_playing();
    }

    /// A link from outside: another ending or knobs, and (unless playing) another step or speed.
    fn follow(&self, l: &Link) {
        self.retrace(l.knobs, l.ending);
        {
            let mut s = self.state.borrow_mut();
            let p = &mut s.playback;
            if !p.playing && (p.step, p.speed) != (l.step.min(p.steps - 1), l.speed) {
                p.seek(l.step);
                p.set_speed(l.speed);
            }
        }
        self.changed();
    }

    /// Starts the animation loop when playing starts (one frame request at a time).
    fn keep_playing(&self) {
        let idle = {
            let s = self.state.borrow();
            s.playback.playing && s.frame_handle.is_none()
        };
        if idle {
            self.state.borrow_mut().last_ts = None;
            self.request_frame();
        }
    }

    fn request_frame(&self) {
        let (Some(w), Some(cb)) = (
            window(),
            self.on_frame.borrow().as_ref().map(|c| c.as_ref().clone()),
        ) else {
            return;
        };
        self.state.borrow_mut().frame_handle = w.request_animation_frame(cb.unchecked_ref()).ok();
    }

    fn tick(&self, ts: f64) {
        let dt = {
            let mut s = self.state.borrow_mut();
            s.frame_handle = None;
            if !s.playback.playing {
                return;
            }
            let dt = s.last_ts.replace(ts).map(|l| ts - l).unwrap_or(0.0);
            let hidden = document().is_some_and(|d| d.hidden());
            if hidden {
                s.last_ts = None;
                0.0
            } else {
                dt.clamp(0.0, MAX_FRAME_MS)
            }
        };
        // The next frame first, so the loop keeps its clock (keep_playing would reset it).
        self.request_frame();
        if dt > 0.0 {
            self.state.borrow_mut().playback.tick(dt);
            self.changed();
        }
    }

    /// Writes what changed since the last call into the DOM.
    pub fn render(&self) {
        let mut s = self.state.borrow_mut();
        let s = &mut *s;
        let p = s.playback;
        let parts = &self.parts;

        // Once per step: the caption (a live region), B's verdict once reached, the transcript.
        let shown = s.shown_step.replace((s.generation, p.step));
        if shown != Some((s.generation, p.step)) {
            let (title, caption) = s
                .trace
                .steps
                .get(p.step)
                .map(|st| (st.title.as_str(), st.caption.as_str()))
                .unwrap_or_default();
            parts.caption_title.set_text_content(Some(title));
            parts.caption_text.set_text_content(Some(caption));
            if let Some(old) = find(&parts.stage, ".check-list") {
                old.remove();
            }
            if let Some(v) = s.trace.verdict_by(p.step) {
                let _ = parts.stage.insert_adjacent_html(
                    "beforeend",
                    &format!(
                        r#"<div class="check-list">{}</div>"#,
                        markup::check_list_inner(v, Some("Replica B"))
                    ),
                );
            }
            let new_trace = shown.map(|(g, _)| g) != Some(s.generation);
            self.render_transcript(&s.trace, p.step, new_trace);
        }

        // The player and the ending.
        let controls = (p.step, p.steps, p.playing, speed_text(p.speed), s.ending);
        if s.shown_controls != Some(controls) {
            s.shown_controls = Some(controls);
            parts.play.set_inner_html(&markup::play_button(p.playing));
            let _ = parts
                .play
                .set_attribute("aria-label", if p.playing { "Pause" } else { "Play" });
            parts.range.set_max(&p.steps.saturating_sub(1).to_string());
            parts.range.set_value(&p.step.to_string());
            let _ = parts.range.set_attribute(
                "aria-valuetext",
                &format!("step {} of {}", p.step + 1, p.steps),
            );
            parts
                .count
                .set_text_content(Some(&format!("{} / {}", p.step + 1, p.steps)));
            parts.speed.set_value(speed_text(p.speed));
            for r in &parts.radios {
                let on = r.value() == s.ending.id();
                r.set_checked(on);
                if let Some(label) = r.parent_element() {
                    label.set_class_name(if on { "seg on" } else { "seg" });
                }
            }
        }

        // The diagram: drawn for the layout the viewport shows, then only what moved.
        let layout = if s.narrow { Layout::Tall } else { Layout::Wide };
        if s.drawn.as_ref().map(|d| d.layout) != Some(layout) {
            if let Some(old) = s.drawn.take() {
                old.svg.remove();
            }
            if parts
                .stage
                .insert_adjacent_html("afterbegin", &markup::diagram(layout))
                .is_ok()
            {
                if let Some(svg) = parts.stage.first_element_child() {
                    s.drawn = Some(Drawn {
                        edges: find_all(&svg, "line"),
                        actors: find_all(&svg, "g[data-actor]"),
                        notes: find_all(&svg, ".actor-note"),
                        svg,
                        layout,
                    });
                }
            }
            s.shown_frame = None;
        }
        let f = frame(&s.trace, &p, self.reduced_motion, layout);
        if let (Some(d), true) = (&s.drawn, s.shown_frame.as_ref() != Some(&f)) {
            let before = s.shown_frame.take();
            for ((a, b), el) in EDGES.into_iter().zip(&d.edges) {
                let on = f.edge_on(a, b);
                if before.as_ref().map(|o| o.edge_on(a, b)) != Some(on) {
                    el.set_attribute("class", if on { "edge on" } else { "edge" })
                        .ok();
                }
            }
            for ((a, g), note) in ACTORS.into_iter().zip(&d.actors).zip(&d.notes) {
                if before.as_ref().map(|o| o.focus == a) != Some(f.focus == a) {
                    let class = if f.focus == a {
                        format!("actor {} focus", a.id())
                    } else {
                        format!("actor {}", a.id())
                    };
                    g.set_attribute("class", &class).ok();
                }
                if before.as_ref().map(|o| o.note(a)) != Some(f.note(a)) {
                    note.set_text_content(Some(f.note(a)));
                }
            }
            if before.as_ref().map(|o| &o.message) != Some(&f.message) {
                if let Some(old) = find(&d.svg, "[data-testid=message]") {
                    old.remove();
                }
                if let Some((x, y, kind, label)) = &f.message {
                    let _ = d
                        .svg
                        .insert_adjacent_html("beforeend", &markup::message(*x, *y, *kind, label));
                }
            }
            s.shown_frame = Some(f);
        }

        // The help, with the focus moved into it and back, so it never lands on nothing.
        if s.help_open != s.shown_help {
            s.shown_help = s.help_open;
            let _ = parts
                .help_button
                .set_attribute("aria-expanded", if s.help_open { "true" } else { "false" });
            if s.help_open {
                let _ = parts
                    .controls
                    .insert_adjacent_html("afterend", &markup::help());
                if let Some(close) =
                    found::<web_sys::HtmlElement>(&parts.section, "[data-act=close-help]")
                {
                    let _ = close.focus();
                }
            } else {
                if let Some(help) = find(&parts.section, ".help") {
                    help.remove();
                }
                let _ = parts.help_button.focus();
            }
        }
    }

    /// The messages up to `step`. Messages already shown stay (a key focused in one keeps its
    /// focus); a new trace starts the list again.
    fn render_transcript(&self, trace: &Trace, step: usize, new_trace: bool) {
        let ls = lines(trace, step);
        let ol = &self.parts.messages;
        if new_trace {
            ol.set_inner_html("");
        }
        let items = find_all(ol, ":scope > li");
        for extra in items.iter().skip(ls.len()) {
            extra.remove();
        }
        for (i, l) in ls.iter().enumerate() {
            let current = l.step == step;
            match items.get(i) {
                Some(li) => li.set_class_name(if current {
                    "message current"
                } else {
                    "message"
                }),
                None => {
                    let _ =
                        ol.insert_adjacent_html("beforeend", &markup::transcript_line(l, current));
                }
            }
        }
        // Keep the newest message in view inside the list, without scrolling the page. Reading
        // a position forces layout, so it waits for the frame; the first message needs none.
        if ls.len() > 1 {
            let ol = ol.clone();
            next_frame(move || {
                if let Some(cur) = find(&ol, ".message.current:last-child")
                    .and_then(|c| c.dyn_into::<web_sys::HtmlElement>().ok())
                {
                    ol.set_scroll_top(cur.offset_top() - 8);
                }
            });
        }
    }
}
