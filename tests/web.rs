//! Component tests in a real browser (wasm-bindgen-test in headless Chromium).
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn fresh_root() -> web_sys::HtmlElement {
    let doc = document();
    let el = doc.create_element("section").unwrap();
    doc.body().unwrap().append_child(&el).unwrap();
    el.unchecked_into()
}

#[wasm_bindgen_test]
async fn proof_shows_the_cores_verdicts() {
    let root = fresh_root();
    let _handle = mount_to(root.clone(), mrtr_lab::components::Proof);
    leptos::task::tick().await;
    let text = root.text_content().unwrap_or_default();
    assert!(text.contains("Accepted"), "{text}");
    assert!(text.contains("Refused at the signature check"), "{text}");
    assert!(text.contains("deployed to staging"), "{text}");
    let ticket = root
        .query_selector("[data-testid=ticket]")
        .unwrap()
        .unwrap()
        .text_content()
        .unwrap();
    assert!(ticket.starts_with("v1."));
}

#[wasm_bindgen_test]
fn panic_panel_is_visible_and_readable() {
    mrtr_lab::panic_panel::show("boom: a test panic");
    let panel = document()
        .get_element_by_id(mrtr_lab::panic_panel::PANEL_ID)
        .unwrap();
    assert_eq!(panel.get_attribute("role").as_deref(), Some("alert"));
    assert!(panel.text_content().unwrap().contains("boom: a test panic"));
}
