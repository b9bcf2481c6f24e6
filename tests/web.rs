//! Component tests in a real browser (wasm-bindgen-test in headless Chromium).
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

fn fresh_root() -> web_sys::HtmlElement {
    let doc = document();
    let el = doc.create_element("div").unwrap();
    doc.body().unwrap().append_child(&el).unwrap();
    el.unchecked_into()
}

fn text_of(root: &web_sys::HtmlElement, sel: &str) -> String {
    root.query_selector(sel)
        .unwrap()
        .map(|e| e.text_content().unwrap_or_default())
        .unwrap_or_default()
}

/// Lets the page's queued tasks run (the link is announced in a task of its own).
async fn settle() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 20);
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

#[wasm_bindgen_test]
async fn round_trip_ends_with_bs_verdict_from_the_core() {
    use mrtr_lab::first_screen::link::{write_fragment, SharedLink};
    use mrtr_lab::first_screen::roundtrip::RoundTrip;
    use mrtr_lab::state::link::Link;
    let root = fresh_root();
    let link = SharedLink::new(Link {
        step: 5,
        ..Link::default()
    });
    link.follow(|_, _| {});
    RoundTrip::mount(&root, link.clone()).unwrap();
    assert_eq!(
        text_of(&root, "[data-testid=verdict]"),
        "Replica B: Accepted"
    );
    assert!(text_of(&root, "[data-testid=transcript]").contains("deployed to staging"));
    assert_eq!(text_of(&root, "[data-testid=step-count]"), "6 / 6");
    assert_eq!(root.query_selector_all("svg.diagram").unwrap().length(), 1);

    // Stepping back hides B's verdict; the link follows the step.
    let back: web_sys::HtmlElement = root
        .query_selector("[data-testid=back]")
        .unwrap()
        .unwrap()
        .unchecked_into();
    back.click();
    assert_eq!(text_of(&root, "[data-testid=step-count]"), "5 / 6");
    assert_eq!(text_of(&root, "[data-testid=verdict]"), "");
    assert_eq!(link.get().step, 4);

    // The other ending, set in the address bar by the other module, is refused at the signature.
    write_fragment(
        &Link {
            ending: mrtr_world::Ending::Tampered,
            step: 5,
            ..Link::default()
        }
        .to_fragment(),
    );
    settle().await;
    assert_eq!(
        text_of(&root, "[data-testid=verdict]"),
        "Replica B: Refused at the signature check"
    );
    assert_eq!(
        text_of(
            &root,
            "[data-testid=transcript] li:last-child .message-title"
        ),
        "<-- step 6: the refusal"
    );

    // The help opens with the focus in it, and gives it back when it closes.
    let help: web_sys::HtmlElement = root
        .query_selector("[data-act=help]")
        .unwrap()
        .unwrap()
        .unchecked_into();
    help.click();
    let active = || {
        document()
            .active_element()
            .and_then(|e| e.get_attribute("data-act"))
    };
    assert_eq!(active().as_deref(), Some("close-help"));
    help.click();
    assert!(root.query_selector("[data-testid=help]").unwrap().is_none());
    assert_eq!(active().as_deref(), Some("help"));
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
