//! The deploy as a task: bob's long deploy, played one step at a time. Each button adds a
//! step to the link; the whole run replays from bob's call, so every state has a URL and the
//! log below is what the two replicas really answered.

use leptos::prelude::*;
use mrtr_world::tasks::{play, TaskStep};
use mrtr_world::{Actor, StoreMode};

use super::page_link::{use_link, EditLink};
use crate::state::json_view::one_line;
use crate::state::link::{LinkStoreFields, Widget};

/// Who sent an exchange, as its row says it.
fn sender(by: Actor) -> &'static str {
    match by {
        Actor::Thief => "alice, with bob's task id",
        _ => "bob's client",
    }
}

/// The deploy as a task: the steps the reader can take, where the task lives, and the log.
#[component]
pub fn TaskConsole() -> impl IntoView {
    let link = use_link();
    let knobs = link.knobs();
    let steps = link.task_steps();
    let run = Memo::new(move |_| play(knobs.get(), &steps.get()));
    let add = move |s: TaskStep| {
        link.edit(Widget::Task).task_steps().update(|v| {
            if v.len() < mrtr_world::tasks::MAX_STEPS {
                v.push(s)
            }
        })
    };
    let full = move || steps.with(|v| v.len() >= mrtr_world::tasks::MAX_STEPS);
    let shared = move || knobs.get().store != StoreMode::PerReplica;
    let set_shared = move |on: bool| {
        link.edit(Widget::Task).knobs().update(|k| {
            k.store = match (on, k.store) {
                (false, _) => StoreMode::PerReplica,
                (true, StoreMode::PerReplica) => StoreMode::Shared,
                (true, other) => other,
            }
        })
    };
    view! {
        <div class="task-body">
            <fieldset class="inline task-store">
                <legend>"Where the replicas keep tasks"</legend>
                <label class="toggle"><input type="radio" name="task-store" data-testid="task-store-shared"
                    prop:checked=shared on:change=move |_| set_shared(true)/>"In a memory both share"</label>
                <label class="toggle"><input type="radio" name="task-store" data-testid="task-store-each"
                    prop:checked=move || !shared() on:change=move |_| set_shared(false)/>"Each in its own process"</label>
            </fieldset>
            <div class="task-state" data-testid="task-state" role="status">
                {move || run.with(|r| {
                    let status = match (r.status, r.shared) {
                        (Some(s), true) => format!("In the shared memory, the task is {}.", s.as_str().replace('_', " ")),
                        (Some(s), false) => format!("In replica A's memory, the task is {}.", s.as_str().replace('_', " ")),
                        (None, _) => "No memory the replicas reach holds the task any more.".into(),
                    };
                    let deploys = match r.deploys {
                        0 => "The deploy has not rolled out.".to_owned(),
                        1 => "The deploy rolled out once.".to_owned(),
                        n => format!("The deploy rolled out {n} times."),
                    };
                    view! {
                        <p><strong>{format!("t = {} s. ", r.now_s)}</strong>{status}" "{r.status_message.clone().unwrap_or_default()}</p>
                        <p data-testid="task-deploys">{deploys}</p>
                        {r.exchanges.last().filter(|_| r.exchanges.len() > 1).map(|e| view! {
                            <p class="sr-only">{format!("Last step: {}", e.words)}</p>
                        })}
                    }
                })}
            </div>
            <fieldset class="task-steps">
                <legend>"Your next step"</legend>
                <div class="task-buttons">
                    {TaskStep::OFFERED.into_iter().map(|s| view! {
                        <button type="button" class=if s.by() == Actor::Thief { "task-step thief" } else { "task-step" }
                            data-testid=format!("task-{}", s.id()) prop:disabled=full
                            on:click=move |_| add(s)>{s.label()}</button>
                    }).collect_view()}
                </div>
                <div class="task-buttons">
                    <button type="button" data-testid="task-undo" prop:disabled=move || steps.with(Vec::is_empty)
                        on:click=move |_| link.edit(Widget::Task).task_steps().update(|v| { v.pop(); })>"Undo the last step"</button>
                    <button type="button" data-testid="task-reset" prop:disabled=move || steps.with(Vec::is_empty)
                        on:click=move |_| link.edit(Widget::Task).task_steps().set(Vec::new())>"Start over"</button>
                </div>
                <Show when=full>
                    <p class="note">{format!("A run holds {} steps at most: undo one, or start over.", mrtr_world::tasks::MAX_STEPS)}</p>
                </Show>
            </fieldset>
            <ol class="task-log" data-testid="task-log">
                {move || run.get().exchanges.into_iter().map(|e| view! {
                    <li class=format!("task-exchange {}", e.tone.class()) data-testid="task-exchange">
                        <h3>{format!("t = {} s: {} → replica {}: {}", e.at_s, sender(e.by), e.replica.name(), e.method)}</h3>
                        <p class="answer-words" data-testid="task-words">{e.words.clone()}</p>
                        {e.log.clone().map(|d| view! { <p class="log">"The replica's log (never sent): "<code>{d}</code></p> })}
                        <details class="json-fold"><summary>"Request: "<code>{one_line(&e.request)}</code></summary><pre class="json small" tabindex="0">{serde_json::to_string_pretty(&e.request).unwrap_or_default()}</pre></details>
                        <details class="json-fold"><summary>"Response: "<code>{one_line(&e.response)}</code></summary><pre class="json small" tabindex="0">{serde_json::to_string_pretty(&e.response).unwrap_or_default()}</pre></details>
                    </li>
                }).collect_view()}
            </ol>
        </div>
    }
}
