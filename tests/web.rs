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

fn text_of(root: &web_sys::HtmlElement, sel: &str) -> String {
    root.query_selector(sel)
        .unwrap()
        .map(|e| e.text_content().unwrap_or_default())
        .unwrap_or_default()
}

#[wasm_bindgen_test]
async fn round_trip_ends_with_bs_verdict_from_the_core() {
    use mrtr_lab::state::link::Link;
    let root = fresh_root();
    let link = RwSignal::new(Link {
        step: 5,
        ..Link::default()
    });
    let _handle = mount_to(
        root.clone(),
        move || view! { <mrtr_lab::components::RoundTrip link=link/> },
    );
    leptos::task::tick().await;
    assert_eq!(
        text_of(&root, "[data-testid=verdict]"),
        "Replica B: Accepted"
    );
    assert!(text_of(&root, "[data-testid=transcript]").contains("deployed to staging"));
    assert_eq!(text_of(&root, "[data-testid=step-count]"), "6 / 6");

    // Stepping back hides B's verdict; the link follows the step.
    let back: web_sys::HtmlElement = root
        .query_selector("[data-testid=back]")
        .unwrap()
        .unwrap()
        .unchecked_into();
    back.click();
    leptos::task::tick().await;
    assert_eq!(text_of(&root, "[data-testid=step-count]"), "5 / 6");
    assert_eq!(text_of(&root, "[data-testid=verdict]"), "");
    assert_eq!(link.get_untracked().step, 4);

    // The other ending, chosen through the link, is refused at the signature.
    link.update(|l| {
        l.ending = mrtr_world::Ending::Tampered;
        l.step = 5;
    });
    leptos::task::tick().await;
    assert_eq!(
        text_of(&root, "[data-testid=verdict]"),
        "Replica B: Refused at the signature check"
    );
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
