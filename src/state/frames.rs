//! The one owner of animation time: a requestAnimationFrame loop that calls back with the
//! elapsed milliseconds while it runs and the tab is visible, and is cancelled on unmount.

use std::cell::{Cell, RefCell};
use std::rc::{Rc, Weak};

use leptos::prelude::*;
use send_wrapper::SendWrapper;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// Longest step of time passed on: a tab that was hidden or a long pause does not jump ahead.
pub const MAX_FRAME_MS: f64 = 100.0;

type FrameCallback = Closure<dyn FnMut(f64)>;

struct Inner {
    running: Cell<bool>,
    handle: Cell<Option<i32>>,
    last: Cell<Option<f64>>,
    callback: RefCell<Option<FrameCallback>>,
}

impl Inner {
    fn request(&self) {
        let Some(window) = web_sys::window() else {
            return;
        };
        if let Some(cb) = self.callback.borrow().as_ref() {
            if let Ok(h) = window.request_animation_frame(cb.as_ref().unchecked_ref()) {
                self.handle.set(Some(h));
            }
        }
    }
}

/// Start and stop the loop; cheap to clone.
#[derive(Clone)]
pub struct FrameLoop {
    inner: Rc<Inner>,
}

impl FrameLoop {
    pub fn start(&self) {
        if !self.inner.running.replace(true) {
            self.inner.last.set(None);
            self.inner.request();
        }
    }

    pub fn stop(&self) {
        self.inner.running.set(false);
        if let (Some(h), Some(w)) = (self.inner.handle.take(), web_sys::window()) {
            let _ = w.cancel_animation_frame(h);
        }
    }
}

fn tab_hidden() -> bool {
    web_sys::window()
        .and_then(|w| w.document())
        .map(|d| d.hidden())
        .unwrap_or(false)
}

/// Creates the loop for the current component; it stops and frees itself on cleanup.
pub fn use_frame_loop(on_frame: impl Fn(f64) + 'static) -> FrameLoop {
    let inner = Rc::new(Inner {
        running: Cell::new(false),
        handle: Cell::new(None),
        last: Cell::new(None),
        callback: RefCell::new(None),
    });
    // The closure holds only a weak reference, so there is no cycle to leak.
    let weak: Weak<Inner> = Rc::downgrade(&inner);
    let closure = Closure::<dyn FnMut(f64)>::new(move |ts: f64| {
        let Some(inner) = weak.upgrade() else { return };
        inner.handle.set(None);
        if !inner.running.get() {
            return;
        }
        let dt = inner.last.replace(Some(ts)).map(|l| ts - l).unwrap_or(0.0);
        if tab_hidden() {
            inner.last.set(None);
        } else {
            on_frame(dt.clamp(0.0, MAX_FRAME_MS));
        }
        if inner.running.get() {
            inner.request();
        }
    });
    *inner.callback.borrow_mut() = Some(closure);
    let frames = FrameLoop { inner };
    let owned = SendWrapper::new(frames.clone());
    on_cleanup(move || {
        owned.stop();
        owned.inner.callback.borrow_mut().take();
    });
    frames
}
