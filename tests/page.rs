//! The page's root in a real browser: `start()` on a skeleton of index.html's places. Its own
//! test binary (its own page), since it mounts into the document's body.
#![cfg(target_arch = "wasm32")]

use mrtr_lab::state::mounts::Slot;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

async fn wait_ms(ms: i32) {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms);
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

/// Waits, a task at a time, up to `ms`, until `f` holds.
async fn until(ms: i32, what: &str, f: impl Fn() -> bool) {
    for _ in 0..ms / 10 {
        if f() {
            return;
        }
        wait_ms(10).await;
    }
    panic!("waited {ms} ms for {what}");
}

fn one(sel: &str) -> web_sys::HtmlElement {
    document()
        .query_selector(sel)
        .unwrap()
        .unwrap_or_else(|| panic!("no {sel}"))
        .unchecked_into()
}

fn count(sel: &str) -> u32 {
    document().query_selector_all(sel).unwrap().length()
}

fn hash() -> String {
    web_sys::window().unwrap().location().hash().unwrap()
}

#[wasm_bindgen_test]
async fn one_root_fills_every_place_shares_one_link_and_then_says_ready() {
    // index.html's places: a section per widget with its mount, the notes and the theme.
    let body = document().body().unwrap();
    let mut html =
        String::from(r#"<span data-mount="theme"></span><div data-mount="notes"></div>"#);
    for slot in Slot::ALL {
        let id = slot.id();
        html.push_str(&format!(
            r#"<section id="{id}"><div class="mount" data-mount="{id}"></div></section>"#
        ));
    }
    let skeleton = document().create_element("div").unwrap();
    skeleton.set_inner_html(&html);
    body.append_child(&skeleton).unwrap();
    // A link that reaches two widgets: the bench's single use, the round trip's step.
    let history = web_sys::window().unwrap().history().unwrap();
    history
        .replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some("#w=bench&step=2&single=1"),
        )
        .unwrap();

    mrtr_lab::start();
    let root = document().document_element().unwrap();
    until(8000, "data-widgets=ready", || {
        root.get_attribute(mrtr_lab::app::STATE_ATTR).as_deref() == Some("ready")
    })
    .await;

    // Ready means every place holds its widget, each once.
    for slot in Slot::ALL {
        let sel = format!("[data-mount={}]", slot.id());
        assert!(
            one(&sel).child_element_count() > 0,
            "{} is empty when the page says ready",
            slot.id()
        );
    }
    assert_eq!(count(".roundtrip-widget"), 1);
    assert_eq!(count("[data-testid=theme-toggle]"), 1);
    // One link for all: the bench and the round trip read the same one.
    let single: web_sys::HtmlInputElement = one("[data-testid=single-use]").unchecked_into();
    assert!(single.checked());
    assert_eq!(
        one("[data-testid=step-count]").text_content().as_deref(),
        Some("3 / 6")
    );
    // A move in one widget is written to the address bar, pointing at that widget.
    one("[data-testid=forward]").click();
    until(2000, "the step in the address bar", || {
        hash().contains("step=3")
    })
    .await;
    assert!(hash().starts_with("#w=roundtrip"), "{}", hash());
    assert!(hash().contains("single=1"), "{}", hash());
    // A link typed into the address bar reaches the widgets.
    web_sys::window()
        .unwrap()
        .location()
        .set_hash("w=roundtrip&step=0")
        .unwrap();
    until(2000, "the typed link", || {
        one("[data-testid=step-count]").text_content().as_deref() == Some("1 / 6")
    })
    .await;
    until(2000, "single use off", || !single.checked()).await;
    assert_eq!(count("#fatal-error"), 0);
}
