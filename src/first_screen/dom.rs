//! The few DOM calls the first screen needs, each returning `Option` so a missing window or
//! element is a no-op rather than a panic (a panic would stop the whole module).

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

pub fn window() -> Option<web_sys::Window> {
    web_sys::window()
}

pub fn document() -> Option<web_sys::Document> {
    window()?.document()
}

/// `<html>`.
pub fn root() -> Option<web_sys::Element> {
    document()?.document_element()
}

/// The first element under `within` that matches `selector`.
pub fn find(within: &web_sys::Element, selector: &str) -> Option<web_sys::Element> {
    within.query_selector(selector).ok().flatten()
}

/// Every element under `within` that matches `selector`, in document order.
pub fn find_all(within: &web_sys::Element, selector: &str) -> Vec<web_sys::Element> {
    let Ok(list) = within.query_selector_all(selector) else {
        return Vec::new();
    };
    (0..list.length())
        .filter_map(|i| list.item(i)?.dyn_into().ok())
        .collect()
}

/// Calls `handler` on every `event` at `target`, for the life of the page (nothing the first
/// screen draws is ever taken away).
pub fn listen(
    target: &web_sys::EventTarget,
    event: &str,
    handler: impl FnMut(web_sys::Event) + 'static,
) {
    let closure = Closure::<dyn FnMut(web_sys::Event)>::new(handler);
    let _ = target.add_event_listener_with_callback(event, closure.as_ref().unchecked_ref());
    closure.forget();
}

/// Runs `f` before the next paint.
pub fn next_frame(f: impl FnOnce() + 'static) {
    if let Some(w) = window() {
        let _ = w.request_animation_frame(Closure::once_into_js(f).unchecked_ref());
    }
}

/// Runs `f` in a task of its own after `ms` milliseconds.
pub fn after(ms: i32, f: impl FnOnce() + 'static) {
    if let Some(w) = window() {
        let _ = w.set_timeout_with_callback_and_timeout_and_arguments_0(
            Closure::once_into_js(f).unchecked_ref(),
            ms,
        );
    }
}

/// The element an event happened on, if it is an element.
pub fn target_element(ev: &web_sys::Event) -> Option<web_sys::Element> {
    ev.target()?.dyn_into().ok()
}

/// Whether the reader asked the system for less motion.
pub fn prefers_reduced_motion() -> bool {
    matches_media("(prefers-reduced-motion: reduce)")
}

pub fn matches_media(query: &str) -> bool {
    window()
        .and_then(|w| w.match_media(query).ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Calls `on_change` with the new answer whenever `query` starts or stops matching.
pub fn on_media_change(query: &'static str, mut on_change: impl FnMut(bool) + 'static) {
    let Some(list) = window().and_then(|w| w.match_media(query).ok().flatten()) else {
        return;
    };
    listen(&list, "change", move |_| on_change(matches_media(query)));
}
