//! Component tests in a real browser (wasm-bindgen-test in headless Chromium): each widget
//! mounted alone and driven through its main path. Every verdict they check comes from the
//! core, through the world.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use mrtr_lab::components::{
    AttackBench, AuditCard, Quiz, ReadTheCode, RoundTrip, RulesExplorer, RunItRaw, TicketInspector,
};
use mrtr_lab::state::link::Link;
use reactive_stores::Store;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// A fresh element to mount into, and the link the widget shares (in context, as the page's
/// root provides it).
fn mount<V: IntoView + 'static>(
    link: Link,
    f: impl FnOnce() -> V + 'static,
) -> (web_sys::HtmlElement, Store<Link>) {
    let _ = any_spawner::Executor::init_wasm_bindgen();
    let doc = document();
    let el: web_sys::HtmlElement = doc.create_element("div").unwrap().unchecked_into();
    doc.body().unwrap().append_child(&el).unwrap();
    let owner = Owner::new();
    let link = owner.with(|| {
        let link = Store::new(link);
        provide_context(link);
        link
    });
    let root = el.clone();
    owner.with(|| leptos::mount::mount_to(root, f).forget());
    std::mem::forget(owner);
    (el, link)
}

fn find(root: &web_sys::HtmlElement, sel: &str) -> web_sys::HtmlElement {
    root.query_selector(sel)
        .unwrap()
        .unwrap_or_else(|| panic!("no {sel}"))
        .unchecked_into()
}

fn text_of(root: &web_sys::HtmlElement, sel: &str) -> String {
    root.query_selector(sel)
        .unwrap()
        .map(|e| e.text_content().unwrap_or_default())
        .unwrap_or_default()
}

/// Lets effects and queued tasks run.
async fn settle() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 30);
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

fn set_value(el: &web_sys::HtmlElement, value: &str, event: &str) {
    if let Some(i) = el.dyn_ref::<web_sys::HtmlInputElement>() {
        i.set_value(value);
    } else if let Some(t) = el.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        t.set_value(value);
    } else if let Some(s) = el.dyn_ref::<web_sys::HtmlSelectElement>() {
        s.set_value(value);
    }
    let ev = web_sys::Event::new_with_event_init_dict(event, &{
        let init = web_sys::EventInit::new();
        init.set_bubbles(true);
        init
    })
    .unwrap();
    el.dispatch_event(&ev).unwrap();
}

#[wasm_bindgen_test]
async fn round_trip_ends_with_bs_verdict_from_the_core() {
    let (root, link) = mount(Link::default(), || view! { <RoundTrip/> });
    settle().await;
    assert_eq!(text_of(&root, "[data-testid=step-count]"), "1 / 6");
    assert!(root
        .query_selector("[data-testid=verdict]")
        .unwrap()
        .is_none());
    for _ in 0..5 {
        find(&root, "[data-testid=forward]").click();
    }
    settle().await;
    assert_eq!(text_of(&root, "[data-testid=step-count]"), "6 / 6");
    assert_eq!(
        text_of(&root, "[data-testid=verdict]"),
        "Replica B: Accepted"
    );
    assert!(text_of(&root, "[data-testid=transcript]")
        .contains("deployed to staging, release 2026.11.30-2"));
    assert_eq!(link.get_untracked().step, 5, "the link follows the player");
    // The other ending, from the link: B refuses at the signature.
    link.update(|l| l.ending = mrtr_world::Ending::Tampered);
    settle().await;
    assert_eq!(
        text_of(&root, "[data-testid=verdict]"),
        "Replica B: Refused at the signature check"
    );
    let checked = find(&root, "input[value=tampered]")
        .unchecked_into::<web_sys::HtmlInputElement>()
        .checked();
    assert!(checked);
    // The help takes the focus and gives it back.
    let help: web_sys::HtmlElement = find(&root, "[aria-controls=roundtrip-help]");
    help.click();
    settle().await;
    let active = || {
        document()
            .active_element()
            .map(|e| e.text_content().unwrap_or_default())
    };
    assert_eq!(active().as_deref(), Some("Close"));
    help.click();
    settle().await;
    assert!(root.query_selector("[data-testid=help]").unwrap().is_none());
    assert_eq!(active().as_deref(), Some("?"));
}

#[wasm_bindgen_test]
async fn the_inspector_judges_an_edited_ticket() {
    let (root, _) = mount(Link::default(), || view! { <TicketInspector/> });
    settle().await;
    assert!(text_of(&root, "[data-testid=ticket-verdict]").contains("deployed"));
    find(&root, "[data-testid=edit-prod]").click();
    settle().await;
    let verdict = text_of(&root, "[data-testid=ticket-verdict]");
    assert!(verdict.contains("signature"), "{verdict}");
    let input = find(&root, "[data-testid=ticket-input]");
    set_value(&input, "not a ticket", "input");
    settle().await;
    assert!(text_of(&root, "[data-testid=ticket-problem]").contains("Where it breaks"));
}

#[wasm_bindgen_test]
async fn the_bench_refuses_the_second_redemption_with_single_use() {
    let link = Link {
        predict: false,
        mv: Some(mrtr_world::misuse::Move::SendTwice),
        ..Link::default()
    };
    let (root, link) = mount(link, || view! { <AttackBench/> });
    settle().await;
    // Without single use the second send deploys again: harm, never drawn as accepted.
    let answers = root
        .query_selector_all("[data-testid=misuse-answer]")
        .unwrap();
    let second = answers.item(1).unwrap().text_content().unwrap();
    assert!(
        second.contains("Harm done") && !second.starts_with("Accepted"),
        "{second}"
    );
    assert!(text_of(&root, "[data-testid=chip-twice]").contains("Harm done"));
    find(&root, "[data-testid=single-use]").click();
    settle().await;
    assert!(link.get_untracked().knobs.single_use);
    let answers = root
        .query_selector_all("[data-testid=misuse-answer]")
        .unwrap();
    let second = answers.item(1).unwrap().text_content().unwrap();
    assert!(
        second.contains("Single use: not redeemed before"),
        "{second}"
    );
}

#[wasm_bindgen_test]
async fn the_bench_asks_for_a_prediction_first_and_says_why() {
    let (root, link) = mount(Link::default(), || view! { <AttackBench/> });
    settle().await;
    // Until predicted, no outcome shows, on the chip or the clock.
    assert_eq!(text_of(&root, "[data-testid=chip-alice]").trim(), "?");
    find(&root, "[data-testid=move-alice]").click();
    settle().await;
    assert_eq!(link.get_untracked().mv.map(|m| m.id()), Some("alice"));
    assert!(text_of(&root, "[data-testid=misuse-answer]").is_empty());
    find(&root, "[data-testid=prediction] input[value=deploys]").click();
    settle().await;
    find(&root, "[data-testid=reveal]").click();
    settle().await;
    let feedback = text_of(&root, "[data-testid=prediction-feedback]");
    assert!(feedback.starts_with("Not this time."), "{feedback}");
    assert!(feedback.contains("Why: Refused"), "{feedback}");
    assert!(text_of(&root, "[data-testid=misuse-answer]").contains("Principal is this caller"));
    assert!(text_of(&root, "[data-testid=chip-alice]").contains("Stopped by the principal"));
}

#[wasm_bindgen_test]
async fn run_it_raw_shows_both_eras() {
    let (root, _) = mount(Link::default(), || view! { <RunItRaw/> });
    settle().await;
    let lanes = text_of(&root, "[data-testid=lanes]");
    assert!(lanes.contains("server/discover") && lanes.contains("initialize"));
    assert!(lanes.contains("deployed to prod, release 2026.11.30-2"));
    // The legacy elicitation/create is glossed as what 2026-07-28 forbids; only it.
    let glossed = root
        .query_selector_all("[data-testid=raw-mid-request]")
        .unwrap();
    assert_eq!(glossed.length(), 1);
    assert!(
        text_of(&root, ".lane.legacy [data-testid=raw-mid-request]").contains("2026-07-28 forbids")
    );
}

#[wasm_bindgen_test]
async fn read_the_code_marks_the_lines_of_each_step() {
    let (root, link) = mount(Link::default(), || view! { <ReadTheCode/> });
    settle().await;
    let marked = |root: &web_sys::HtmlElement| {
        let all = root.query_selector_all(".cl[data-marked]").unwrap();
        (0..all.length())
            .filter_map(|i| all.get(i).and_then(|n| n.text_content()))
            .collect::<Vec<_>>()
            .join("\n")
    };
    // The first call: the handler runs with no ticket.
    assert!(marked(&root).contains("ctx.mcpReq.requestState()"));
    // The ask: the ticket is minted.
    link.update(|l| l.step = 1);
    settle().await;
    assert!(marked(&root).contains("codec.mint({ env })"));
    // Between the calls, no server code runs.
    find(&root, "[data-step='3']").click();
    settle().await;
    assert_eq!(marked(&root), "");
    assert_eq!(link.with_untracked(|l| l.step), 3);
    // The retry in Python: the SDK's check first.
    find(&root, "[data-lang=py]").click();
    link.update(|l| l.step = 5);
    settle().await;
    assert!(text_of(&root, "[data-testid=code-notes] li").contains("opens the sealed ticket"));
    assert!(marked(&root).contains("deployed to"));
}

#[wasm_bindgen_test]
async fn the_rules_explorer_never_asks_on_a_listing() {
    let (root, _) = mount(Link::default(), || view! { <RulesExplorer/> });
    settle().await;
    set_value(
        &find(&root, "[data-testid=rules-method]"),
        "tools/list",
        "change",
    );
    settle().await;
    assert!(text_of(&root, "[data-testid=rules-response]").contains("\"tools\""));
    // Tool names mention input_required; the result itself never is one.
    assert!(text_of(&root, "[data-testid=rules-response]").contains("\"resultType\": \"complete\""));
}

#[wasm_bindgen_test]
async fn the_quiz_explains_an_answer() {
    let (root, _) = mount(Link::default(), || view! { <Quiz/> });
    settle().await;
    find(&root, "[data-testid=quiz-reset]").click();
    settle().await;
    let first: web_sys::HtmlElement = find(&root, ".question input");
    first.click();
    settle().await;
    find(&root, ".question button").click();
    settle().await;
    assert!(root
        .query_selector("[role=status].feedback")
        .unwrap()
        .is_some());
    assert!(text_of(&root, "[data-testid=quiz-score]").contains("of 1 answered"));
}

#[wasm_bindgen_test]
async fn the_audit_card_reads_a_pasted_report_as_text() {
    let (root, _) = mount(Link::default(), || view! { <AuditCard/> });
    settle().await;
    let report = r#"{"schema":"mrtr-audit/1","target":"t","tool":"deploy","requests":2,"rows":[
        {"id":"honest","status":"pass","evidence":"ok"},
        {"id":"other-token","status":"fail","evidence":"<b>accepted</b>"}]}"#;
    set_value(&find(&root, "[data-testid=audit-paste]"), report, "input");
    settle().await;
    assert!(text_of(&root, "[data-testid=audit-verdict]").starts_with("Fails"));
    let row = find(&root, "[data-row=other-token]");
    assert!(
        row.text_content().unwrap().contains("<b>accepted</b>"),
        "shown as text"
    );
    assert_eq!(
        find(&root, "[data-row=other-token] a.see")
            .get_attribute("href")
            .as_deref(),
        Some("#w=bench&move=alice&predict=0")
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
