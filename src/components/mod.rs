//! Leptos view components of the widgets. Each reads traces and verdicts computed by the core;
//! none types one in.

/// The audit card: what the audit checks, and a report read or made on the spot.
pub mod audit;
pub mod bench;
mod check_list;
pub mod clock;
/// Read the code: the deploy handler in four implementations, in step with the round trip.
pub mod code;
/// The embed docs: each widget's iframe snippet, with a live preview.
pub mod embed_docs;
mod fetch;
mod gloss;
/// The ticket inspector: the ticket taken apart and judged live.
pub mod inspector;
/// The "break it" knobs of the replicas, and the bench's.
pub mod knobs;
pub mod live;
mod live_audit;
pub mod lms;
/// The notes on what could not be used from the link or query.
pub mod notes;
pub mod page_link;
/// The quiz: one question at a time, progress kept in this browser (and sent to a course).
pub mod quiz;
/// Run it raw: the lab's raw transcripts of both eras, side by side.
pub mod raw;
/// The round trip: the diagram, its player controls and the transcript.
pub mod roundtrip;
/// The rules explorer: who may ask for what, answered by the lab's server.
pub mod rules;
/// The deploy as a task: bob's long deploy, polled, answered and cancelled step by step.
pub mod task;
/// The theme toggle (auto, light, dark) and the theme it remembers.
pub mod theme;

/// Marks a moment of start-up for the browser's performance timeline (`mrtr:<name>`), so a
/// trace of the page can say what ran in each long task (`e2e/first-visit.mjs` reads them).
pub fn mark(name: &str) {
    if let Some(p) = leptos::prelude::window().performance() {
        let _ = p.mark(&format!("mrtr:{name}"));
    }
}

/// How many widget parts are still waiting for their task ([`from_next_task`]). The page
/// provides it; it is ready when every widget is in its place and this is zero.
#[derive(Clone, Copy)]
pub struct LaterParts(pub leptos::prelude::RwSignal<u32>);

/// True from the next task on: a widget draws the part below its first screen in a task of
/// its own, so no one task builds all of it (the page's blocking time is the sum of the
/// long ones). Its room is reserved, so nothing moves when that part arrives. The page's
/// [`LaterParts`] counts it until then.
pub fn from_next_task() -> leptos::prelude::ReadSignal<bool> {
    use leptos::prelude::*;
    let (ready, set_ready) = signal(false);
    let later = use_context::<LaterParts>();
    if let Some(LaterParts(n)) = later {
        n.update(|n| *n += 1);
    }
    set_timeout(
        move || {
            mark("later");
            let _ = set_ready.try_set(true);
            if let Some(LaterParts(n)) = later {
                let _ = n.try_update(|n| *n = n.saturating_sub(1));
            }
        },
        std::time::Duration::ZERO,
    );
    ready
}

/// A `data:` URL of `text` as `media`, for a download link made without a Blob.
pub fn data_url(media: &str, text: &str) -> String {
    format!(
        "data:{media};charset=utf-8,{}",
        percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC)
    )
}

/// Copies `text` to the clipboard and says how it went in `status` (`done` on success). Not
/// leptos-use's `use_clipboard`: its `copy` drops a refusal silently (only success sets
/// `copied`), and a refused copy must say so and tell the reader what to do instead.
pub fn copy_text(text: String, done: &'static str, status: leptos::prelude::RwSignal<String>) {
    use leptos::prelude::*;
    let Some(clipboard) = web_sys::window().map(|w| w.navigator().clipboard()) else {
        status.set("Copying is not available here: select the text and copy it.".into());
        return;
    };
    let promise = clipboard.write_text(&text);
    leptos::task::spawn_local(async move {
        let msg = match wasm_bindgen_futures::JsFuture::from(promise).await {
            Ok(_) => done.to_owned(),
            Err(_) => "The browser refused to copy: select the text and copy it.".to_owned(),
        };
        let _ = status.try_set(msg);
    });
}

/// The elements a `querySelectorAll` found (a `NodeList` read as an iterator).
pub fn elements(list: web_sys::NodeList) -> impl Iterator<Item = web_sys::Element> {
    use wasm_bindgen::JsCast;
    (0..list.length()).filter_map(move |i| list.get(i).and_then(|n| n.dyn_into().ok()))
}

pub use audit::AuditCard;
pub use bench::AttackBench;
pub use check_list::CheckList;
pub use code::ReadTheCode;
pub use embed_docs::EmbedDocs;
pub use gloss::{gloss_the_page, EmbedGlossary, Gloss};
pub use inspector::TicketInspector;
pub use live::LiveServer;
pub use notes::LinkNotes;
pub use quiz::Quiz;
pub use raw::RunItRaw;
pub use roundtrip::RoundTrip;
pub use rules::RulesExplorer;
pub use task::TaskConsole;
