//! The page's deep link, kept in the address bar. The page is two wasm modules (the first
//! screen, and the widgets below it, loaded later); each holds its own copy of the [`Link`],
//! and the address bar is the one they agree on: whoever changes it says so with an event.

use std::cell::RefCell;
use std::rc::Rc;

use super::dom::{after, document, listen, next_frame, window};
use crate::state::link::{Link, Widget};

/// Fired on `window` after one module has written a new fragment.
pub const LINK_EVENT: &str = "mrtr-lab:link";

pub fn location_hash() -> String {
    window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

pub fn location_search() -> String {
    window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Puts the fragment in the address bar without adding a history entry or firing hashchange,
/// and tells the other module (soon after) if it changed.
pub fn write_fragment(fragment: &str) {
    let Some(w) = window() else { return };
    if location_hash().trim_start_matches('#') == fragment {
        return;
    }
    let Ok(h) = w.history() else { return };
    let written = h
        .replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("#{fragment}")),
        )
        .is_ok();
    if written {
        // In a task of its own: a listener that wrote the link while handling this very event
        // would otherwise be called inside itself, which a wasm closure cannot be.
        after(0, || {
            if let (Some(w), Ok(e)) = (window(), web_sys::Event::new(LINK_EVENT)) {
                let _ = w.dispatch_event(&e);
            }
        });
    }
}

/// Brings a widget into view now.
pub fn scroll_now(id: &str) {
    if let Some(el) = document().and_then(|d| d.get_element_by_id(id)) {
        el.scroll_into_view();
    }
}

/// Brings a widget into view once the page has been drawn.
pub fn scroll_to(id: &'static str) {
    next_frame(move || scroll_now(id));
}

type Listener = Box<dyn Fn(&Link)>;

/// This module's copy of the link. Changes made here go to the address bar; changes made there
/// (by the other module or the reader) come back to whoever [`SharedLink::subscribe`]d.
pub struct SharedLink {
    link: RefCell<Link>,
    listeners: RefCell<Vec<Listener>>,
}

impl SharedLink {
    /// Starts from `initial`. Soon after (not during the start-up, where the address bar's
    /// first write cost up to 6 ms), the link in use is written back, so the address bar shows
    /// what was read of a malformed link.
    pub fn new(initial: Link) -> Rc<SharedLink> {
        let link = Rc::new(SharedLink {
            link: RefCell::new(initial),
            listeners: RefCell::new(Vec::new()),
        });
        // Unless something has written the address bar since: then it is the newer link.
        let read = location_hash();
        let me = Rc::clone(&link);
        after(0, move || {
            if location_hash() == read {
                write_fragment(&me.get().to_fragment());
            }
        });
        link
    }

    pub fn get(&self) -> Link {
        self.link.borrow().clone()
    }

    /// Changes the link here and in the address bar.
    pub fn update(&self, f: impl FnOnce(&mut Link)) {
        let fragment = {
            let mut l = self.link.borrow_mut();
            let before = l.clone();
            f(&mut l);
            if *l == before {
                return;
            }
            l.to_fragment()
        };
        write_fragment(&fragment);
    }

    /// Hears about links set from outside this module.
    pub fn subscribe(&self, f: impl Fn(&Link) + 'static) {
        self.listeners.borrow_mut().push(Box::new(f));
    }

    /// Takes `l` if it differs (so the two modules cannot echo each other forever).
    fn adopt(&self, l: Link) {
        if *self.link.borrow() == l {
            return;
        }
        *self.link.borrow_mut() = l.clone();
        for f in self.listeners.borrow().iter() {
            f(&l);
        }
        // What the listeners made of it (a step clamped to the trace, say) is the link now.
        let fragment = self.link.borrow().to_fragment();
        write_fragment(&fragment);
    }

    /// Follows the address bar. `on_edit` hears about fragments the reader typed: the notes on
    /// what could not be used, and the widget they point at.
    pub fn follow(self: &Rc<Self>, on_edit: impl Fn(Vec<String>, Widget) + 'static) {
        let Some(w) = window() else { return };
        let me = Rc::clone(self);
        listen(&w, LINK_EVENT, move |_| {
            me.adopt(Link::parse(&location_hash()).0)
        });
        let me = Rc::clone(self);
        listen(&w, "hashchange", move |_| {
            let (l, notes) = Link::parse(&location_hash());
            let target = l.widget;
            me.adopt(l);
            on_edit(notes, target);
        });
    }
}
