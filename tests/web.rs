//! Component tests in a real browser (wasm-bindgen-test in headless Chromium): each widget
//! mounted alone and driven through its main path. Every verdict they check comes from the
//! core, through the world.
#![cfg(target_arch = "wasm32")]

use leptos::prelude::*;
use mrtr_lab::components::clock::Clock;
use mrtr_lab::components::theme::ThemeToggle;
use mrtr_lab::components::{
    AttackBench, AuditCard, Quiz, ReadTheCode, RoundTrip, RulesExplorer, RunItRaw, TicketInspector,
};
use mrtr_lab::state::link::{Link, Widget};
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

/// The next task: what a zero-delay timer queued has run by then.
async fn next_task() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let _ = web_sys::window()
            .unwrap()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, 0);
    });
    wasm_bindgen_futures::JsFuture::from(promise).await.unwrap();
}

/// Lets effects run (Leptos's `tick`), then the widget parts that wait for the next task,
/// then the effects those started: no sleeping for a guessed time.
async fn settle() {
    any_spawner::Executor::tick().await;
    next_task().await;
    any_spawner::Executor::tick().await;
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
async fn a_reset_clears_ticked_and_checked_choices() {
    let (root, _) = mount(Link::default(), || view! { <Quiz/> });
    settle().await;
    find(&root, "[data-testid=quiz-reset]").click();
    settle().await;
    let ticked = |root: &web_sys::Element| {
        let all = root.query_selector_all(".question input").unwrap();
        (0..all.length())
            .filter(|i| {
                all.item(*i)
                    .unwrap()
                    .unchecked_into::<web_sys::HtmlInputElement>()
                    .checked()
            })
            .count()
    };
    // Ticked but not checked, then reset: nothing stays ticked.
    find(&root, ".question input").click();
    settle().await;
    assert_eq!(ticked(&root), 1);
    find(&root, "[data-testid=quiz-reset]").click();
    settle().await;
    assert_eq!(ticked(&root), 0);
    // Ticked and checked, then reset: the saved answer and its tick are gone.
    find(&root, ".question input").click();
    settle().await;
    find(&root, ".question button").click();
    settle().await;
    assert_eq!(ticked(&root), 1);
    find(&root, "[data-testid=quiz-reset]").click();
    settle().await;
    assert_eq!(ticked(&root), 0);
    assert!(text_of(&root, "[data-testid=quiz-score]").contains("0 right of 0 answered"));
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

fn key(el: &web_sys::HtmlElement, key: &str) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    init.set_cancelable(true);
    let ev = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).unwrap();
    el.dispatch_event(&ev).unwrap();
}

/// A mouse pointer event at `fraction` of the way along `lane`.
fn pointer(lane: &web_sys::HtmlElement, kind: &str, fraction: f64) {
    let r = lane.get_bounding_client_rect();
    let init = web_sys::PointerEventInit::new();
    init.set_bubbles(true);
    init.set_cancelable(true);
    init.set_pointer_id(1);
    init.set_pointer_type("mouse");
    init.set_client_x((r.left() + r.width() * fraction).round() as i32);
    init.set_client_y((r.top() + r.height() / 2.0) as i32);
    let ev = web_sys::PointerEvent::new_with_event_init_dict(kind, &init).unwrap();
    lane.dispatch_event(&ev).unwrap();
}

#[wasm_bindgen_test]
async fn the_clock_moves_by_keys_and_by_drag_and_holds_its_scale_while_dragged() {
    let (root, link) = mount(Link::default(), || {
        view! { <Clock tones=Signal::derive(|| vec!["ok"; mrtr_world::misuse::Move::ALL.len()])/> }
    });
    settle().await;
    let ttl = find(&root, "[data-testid=ttl]");
    let ttl_of = || link.with_untracked(|l| l.knobs.ttl_s);
    // Keys: a second per arrow, ten per page, the ends on Home and End.
    key(&ttl, "ArrowRight");
    assert_eq!(ttl_of(), 121);
    key(&ttl, "PageDown");
    key(&ttl, "ArrowDown");
    assert_eq!(ttl_of(), 110);
    settle().await;
    assert_eq!(ttl.get_attribute("aria-valuenow").as_deref(), Some("110"));
    assert_eq!(link.with_untracked(|l| l.widget), Widget::Bench);
    key(&ttl, "Home");
    let min = ttl_of();
    key(&ttl, "ArrowLeft");
    assert_eq!(
        ttl_of(),
        min,
        "Home is the least lifetime; below it, nothing moves"
    );
    key(&ttl, "End");
    let max = ttl_of();
    assert!(max > min);
    key(&ttl, "Home");
    key(&ttl, "x");
    assert_eq!(ttl_of(), min, "other keys do nothing");
    // A move's marker: dragged half-way along a 180 s axis, it sends the move at 90 s.
    link.update(|l| l.knobs.ttl_s = 120);
    settle().await;
    let lane: web_sys::HtmlElement = find(&root, "[data-testid=time-0]")
        .parent_element()
        .unwrap()
        .unchecked_into();
    pointer(&lane, "pointerdown", 0.5);
    assert_eq!(link.with_untracked(|l| l.times[0]), 90);
    pointer(&lane, "pointermove", 0.25);
    assert_eq!(link.with_untracked(|l| l.times[0]), 45);
    pointer(&lane, "pointerup", 0.25);
    pointer(&lane, "pointermove", 0.75);
    assert_eq!(
        link.with_untracked(|l| l.times[0]),
        45,
        "released, it stays"
    );
    // The expiry dragged to the axis's end would grow the axis; while held, the axis keeps
    // its 180 s, so the pointer and the value stay together.
    let ttl_lane: web_sys::HtmlElement = ttl.parent_element().unwrap().unchecked_into();
    pointer(&ttl_lane, "pointerdown", 1.0);
    assert_eq!(ttl_of(), 180);
    settle().await;
    pointer(&ttl_lane, "pointermove", 0.5);
    assert_eq!(ttl_of(), 90, "still on the 180 s axis while held");
    pointer(&ttl_lane, "pointerup", 0.5);
}

#[wasm_bindgen_test]
async fn the_theme_toggle_cycles_and_is_remembered() {
    let html = document().document_element().unwrap();
    let storage = web_sys::window().unwrap().local_storage().unwrap().unwrap();
    storage.remove_item("mrtr-lab.theme").unwrap();
    html.remove_attribute("data-theme").unwrap();
    let (root, _) = mount(Link::default(), || view! { <ThemeToggle/> });
    let button = find(&root, "[data-testid=theme-toggle]");
    assert_eq!(
        button.text_content().as_deref(),
        Some("Theme: follows your system")
    );
    let mut seen = Vec::new();
    for _ in 0..3 {
        button.click();
        settle().await;
        seen.push((
            html.get_attribute("data-theme"),
            storage.get_item("mrtr-lab.theme").unwrap(),
            button.text_content().unwrap_or_default(),
        ));
    }
    let s = |x: &str| Some(x.to_owned());
    assert_eq!(
        seen,
        [
            (s("light"), s("light"), "Theme: light".to_owned()),
            (s("dark"), s("dark"), "Theme: dark".to_owned()),
            (None, None, "Theme: follows your system".to_owned()),
        ]
    );
    // A choice made in another tab arrives as a storage event, and is taken here too.
    storage.set_item("mrtr-lab.theme", "dark").unwrap();
    let init = web_sys::StorageEventInit::new();
    init.set_key(Some("mrtr-lab.theme"));
    init.set_new_value(Some("dark"));
    let ev = web_sys::StorageEvent::new_with_event_init_dict("storage", &init).unwrap();
    web_sys::window().unwrap().dispatch_event(&ev).unwrap();
    settle().await;
    assert_eq!(html.get_attribute("data-theme").as_deref(), Some("dark"));
    assert_eq!(button.text_content().as_deref(), Some("Theme: dark"));
    storage.remove_item("mrtr-lab.theme").unwrap();
    html.remove_attribute("data-theme").unwrap();
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
