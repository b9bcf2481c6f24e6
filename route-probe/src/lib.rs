//! The probe's one widget: the honest round trip from the real simulated world, stepped through
//! with Back and Next, each step's title, caption and messages. The same component is mounted
//! (route 1) or rendered ahead of time and hydrated (route 2).

use leptos::prelude::*;
use mrtr_world::knobs::Knobs;
use mrtr_world::scenario::{round_trip, Ending};
use mrtr_world::trace::{EventKind, Trace};

/// What one step shows: its title, caption, and each message sent in it (kind, pretty JSON).
#[derive(Clone, PartialEq)]
pub struct StepView {
    pub title: String,
    pub caption: String,
    pub messages: Vec<(String, String)>,
}

pub fn steps(trace: &Trace) -> Vec<StepView> {
    trace
        .steps
        .iter()
        .map(|s| StepView {
            title: s.title.clone(),
            caption: s.caption.clone(),
            messages: trace.events[s.events.clone()]
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::Sent { kind, json, .. } => Some((
                        kind.id().to_owned(),
                        serde_json::to_string_pretty(json).unwrap_or_default(),
                    )),
                    _ => None,
                })
                .collect(),
        })
        .collect()
}

#[component]
pub fn RoundTripProbe() -> impl IntoView {
    let all = StoredValue::new(steps(&round_trip(Knobs::default(), Ending::Honest)));
    let count = all.with_value(Vec::len);
    let (at, set_at) = signal(0usize);
    // A trace with no steps shows nothing rather than panicking.
    let shown = Memo::new(move |_| all.with_value(|s| s.get(at.get()).cloned()));
    view! {
        <div class="probe">
            <ol class="steps">
                {(0..count)
                    .map(|i| {
                        let title = all.with_value(|s| s[i].title.clone());
                        view! {
                            <li>
                                <button
                                    aria-current=move || (at.get() == i).then_some("step")
                                    on:click=move |_| set_at.set(i)
                                >
                                    {title}
                                </button>
                            </li>
                        }
                    })
                    .collect_view()}
            </ol>
            <div class="controls">
                <button on:click=move |_| set_at.update(|a| *a = a.saturating_sub(1))>"Back"</button>
                <span>{move || format!("Step {} of {count}", at.get() + 1)}</span>
                <button on:click=move |_| set_at.update(|a| *a = (*a + 1).min(count.saturating_sub(1)))>"Next"</button>
            </div>
            <h3>{move || shown.get().map(|s| s.title)}</h3>
            <p>{move || shown.get().map(|s| s.caption)}</p>
            {move || {
                shown
                    .get()
                    .map(|s| s.messages)
                    .unwrap_or_default()
                    .into_iter()
                    .map(|(kind, json)| view! { <details><summary>{kind}</summary><pre>{json}</pre></details> })
                    .collect_view()
            }}
        </div>
    }
}
