//! The deploy as a task: bob's long deploy, played one step at a time. Each button adds a
//! step to the link; the whole run replays from bob's call, so every state has a URL and the
//! log below is what the two replicas really answered.

use leptos::prelude::*;
use mrtr_world::tasks::{play, TaskRun, TaskStep, MAX_STEPS};
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

/// The deploy as a task: where the task lives, where it is, the steps the reader can take,
/// and the log of what each request came to.
#[component]
pub fn TaskConsole() -> impl IntoView {
    let link = use_link();
    let knobs = link.knobs();
    let steps = link.task_steps();
    let run = Memo::new(move |_| play(knobs.get(), &steps.get()));
    view! {
        <div class="task-body">
            <TaskStore/>
            <TaskState run=run/>
            <TaskSteps/>
            <TaskLog run=run/>
        </div>
    }
}

/// Where the replicas keep tasks: the page's store knob, as two choices.
#[component]
fn TaskStore() -> impl IntoView {
    let link = use_link();
    let knobs = link.knobs();
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
        <fieldset class="inline task-store">
            <legend>"Where the replicas keep tasks"</legend>
            <label class="toggle"><input type="radio" name="task-store" data-testid="task-store-shared"
                prop:checked=shared on:change=move |_| set_shared(true)/>"In a memory both share"</label>
            <label class="toggle"><input type="radio" name="task-store" data-testid="task-store-each"
                prop:checked=move || !shared() on:change=move |_| set_shared(false)/>"Each in its own process"</label>
        </fieldset>
    }
}

/// Where the task is at the end of the run, and how often the deploy rolled out; the last
/// step's words for a screen reader.
#[component]
fn TaskState(run: Memo<TaskRun>) -> impl IntoView {
    view! {
        <div class="task-state" data-testid="task-state" role="status">
            {move || run.with(|r| view! {
                <p><strong>{format!("t = {} s. ", r.now_s)}</strong>{r.state_words()}</p>
                <p data-testid="task-deploys">{r.deploy_words()}</p>
                {r.exchanges.last().filter(|_| r.exchanges.len() > 1).map(|e| view! {
                    <p class="sr-only">{format!("Last step: {}", e.words)}</p>
                })}
            })}
        </div>
    }
}

/// The steps the reader can take next, and undo or start over; each adds to the link.
#[component]
fn TaskSteps() -> impl IntoView {
    let link = use_link();
    let steps = link.task_steps();
    let add = move |s: TaskStep| {
        link.edit(Widget::Task).task_steps().update(|v| {
            if v.len() < MAX_STEPS {
                v.push(s)
            }
        })
    };
    let full = move || steps.with(|v| v.len() >= MAX_STEPS);
    let empty = move || steps.with(Vec::is_empty);
    view! {
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
                <button type="button" data-testid="task-undo" prop:disabled=empty
                    on:click=move |_| link.edit(Widget::Task).task_steps().update(|v| { v.pop(); })>"Undo the last step"</button>
                <button type="button" data-testid="task-reset" prop:disabled=empty
                    on:click=move |_| link.edit(Widget::Task).task_steps().set(Vec::new())>"Start over"</button>
            </div>
            <Show when=full>
                <p class="note">{format!("A run holds {MAX_STEPS} steps at most: undo one, or start over.")}</p>
            </Show>
        </fieldset>
    }
}

/// Every request of the run: who sent it to which replica, what it came to, the replica's
/// log, and the bytes, folded.
#[component]
fn TaskLog(run: Memo<TaskRun>) -> impl IntoView {
    view! {
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
    }
}
