//! The panic hook itself, in a real browser: a panic shows the readable panel. Its own test
//! binary, since after a panic this module's instance is not used again.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::closure::Closure;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn boom() {
    panic!("boom: the hook's own test")
}

#[wasm_bindgen_test]
async fn a_panic_shows_the_panel_with_its_message() {
    let window = web_sys::window().unwrap();
    let document = window.document().unwrap();
    mrtr_lab::panic_panel::install();
    assert!(document
        .get_element_by_id(mrtr_lab::panic_panel::PANEL_ID)
        .is_none());
    // The panic happens in a task of its own, as a widget's would (a timer, an event).
    let boom = Closure::once_into_js(boom);
    window
        .set_timeout_with_callback_and_timeout_and_arguments_0(boom.unchecked_ref(), 0)
        .unwrap();
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 50);
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
    let panel = document
        .get_element_by_id(mrtr_lab::panic_panel::PANEL_ID)
        .expect("the hook showed no panel");
    assert_eq!(panel.get_attribute("role").as_deref(), Some("alert"));
    let text = panel.text_content().unwrap();
    assert!(text.contains("boom: the hook's own test"), "{text}");
    assert!(text.contains("Reload the page"), "{text}");
}
