use leptos::prelude::*;
use mrtr_core::ticket::Seal;
use mrtr_world::checks::{switchable, CheckWords};
use mrtr_world::StoreMode;

use super::page_link::{use_link, EditLink};
use super::Gloss;
use crate::state::link::{LinkStoreFields, Widget};

/// "Break it": what replica B checks, which key it holds, and how tickets are sealed.
#[component]
pub fn ServerKnobs(
    /// The widget the knobs sit in: it prefixes their ids, and a change points the link at it.
    widget: Widget,
) -> impl IntoView {
    let link = use_link();
    let prefix = widget.id();
    // Folded until asked for, unless the page opens with B already broken (a deep link).
    let broken = link.with_untracked(|l| {
        let k = l.knobs;
        let d = mrtr_world::Knobs::default();
        k.policy_b != d.policy_b || k.b_key_differs || k.seal != d.seal
    });
    view! {
        <details class="fold knobs-fold" open=broken data-testid=format!("{prefix}-knobs-fold")>
        <summary>"Break it: replica B's settings"</summary>
        <fieldset class="knobs" data-testid=format!("{prefix}-knobs")>
            <legend class="sr-only">"Replica B's settings"</legend>
            <div class="knob-row">
                <span class="knob-label">"Checks B runs:"</span>
                {switchable().map(|c| view! {
                    <label class="toggle">
                        <input type="checkbox" data-check=c.id()
                            prop:checked=move || link.knobs().with(|k| k.policy_b.runs(c))
                            on:change=move |ev| { let on = event_target_checked(&ev); link.edit(widget).knobs().update(|k| k.policy_b.set(c, on)); }/>
                        {move || c.question(link.knobs().with(|k| k.seal))}
                    </label>
                }).collect_view()}
            </div>
            <div class="knob-row">
                <label class="toggle">
                    <input type="checkbox" prop:checked=move || link.knobs().with(|k| k.b_key_differs)
                        on:change=move |ev| { let on = event_target_checked(&ev); link.edit(widget).knobs().update(|k| k.b_key_differs = on); }/>
                    "B holds a different key from A"
                </label>
                <label class="toggle">
                    <input type="checkbox" prop:checked=move || link.knobs().with(|k| k.seal == Seal::Sealed)
                        on:change=move |ev| { let on = event_target_checked(&ev); link.edit(widget).knobs().update(|k| k.seal = if on { Seal::Sealed } else { Seal::Signed }); }/>
                    "Seal tickets ("<Gloss term="AEAD"/>") instead of signing them (HMAC)"
                </label>
            </div>
            <div class="knob-row">
                <button type="button" on:click=move |_| link.edit(widget).knobs().update(|k| {
                    k.policy_b.expiry = false;
                    k.policy_b.principal = false;
                })>"Act like a naive server: signs the caller and an expiry, checks neither"</button>
                <button type="button" on:click=move |_| link.edit(widget).knobs().update(|k| {
                    *k = mrtr_world::Knobs { seed: k.seed, ..Default::default() };
                })>"Reset the servers"</button>
            </div>
        </fieldset>
        </details>
    }
}

/// The bench's servers, in one place: single use, where its memory lives, and whether asking
/// again is done the naive way (a brand-new ticket, the memory never asked). The lifetime is
/// the clock's own handle.
#[component]
pub fn BenchKnobs() -> impl IntoView {
    let link = use_link();
    let widget = Widget::Bench;
    view! {
        <fieldset class="knobs" data-testid="bench-knobs">
            <legend>"The servers' memory"</legend>
            <div class="knob-row">
                <label class="toggle">
                    <input type="checkbox" data-testid="single-use" prop:checked=move || link.knobs().with(|k| k.single_use)
                        on:change=move |ev| { let on = event_target_checked(&ev); link.edit(widget).knobs().update(|k| k.single_use = on); }/>
                    "Single use: remember redeemed tickets"
                </label>
                <label class="toggle">
                    <input type="checkbox" data-testid="naive-ask-again" prop:checked=move || link.knobs().with(|k| k.naive_ask_again)
                        on:change=move |ev| { let on = event_target_checked(&ev); link.edit(widget).knobs().update(|k| k.naive_ask_again = on); }/>
                    "Naive ask-again: a brand-new ticket, memory not asked"
                </label>
            </div>
            <fieldset class="knob-row store-choice" data-testid="store-choice"
                prop:disabled=move || link.knobs().with(|k| !k.single_use)>
                <legend>"Where the memory lives"</legend>
                {StoreMode::ALL.into_iter().map(|mode| view! {
                    <label class="toggle">
                        <input type="radio" name="bench-store" data-testid=format!("store-{}", mode.id())
                            prop:checked=move || link.knobs().with(|k| k.store == mode)
                            on:change=move |_| link.edit(widget).knobs().update(|k| k.store = mode)/>
                        {store_label(mode)}
                    </label>
                }).collect_view()}
            </fieldset>
            <Show when=move || link.knobs().with(|k| k.single_use)>
                <p class="note" data-testid="store-note">{move || store_note(link.knobs().with(|k| k.store))}</p>
            </Show>
        </fieldset>
    }
}

/// Where the memory of redemptions lives, as the radio button offers it.
fn store_label(store: StoreMode) -> &'static str {
    match store {
        StoreMode::PerReplica => "In each replica, its own",
        StoreMode::Shared => "One shared store (one machine)",
        StoreMode::Quorum => "A consensus store (three machines)",
    }
}

/// What the memory of redemptions is in a real deployment, for the setting shown.
fn store_note(store: StoreMode) -> &'static str {
    match store {
        StoreMode::Shared => "Outside the lab, a memory both replicas share is a separate service. The lab's native server can keep it in Redis: a redemption is one atomic command, \u{201c}set this ticket id unless it is already set, and forget it a minute after the ticket expires\u{201d} (SET NX PX), so when two replicas race on the same ticket exactly one of them wins. If that memory cannot be reached, the server refuses the redemption rather than risk a second one. Here it runs on one machine with a standby copy that it updates after answering, as a Redis replica is updated: if the machine dies before its copy caught up, the copy takes over without the last redemptions.",
        StoreMode::PerReplica => "This is a server that keeps its memory in its own process, as mrtr-server --single-use does without --redemption. Behind a load balancer, a repeat that lands on the other replica finds nothing there and is accepted.",
        StoreMode::Quorum => "A consensus store runs on three machines and acknowledges a redemption only once two of them hold it, as etcd does (the native server's --redemption etcd://\u{2026}). Any one machine may die and every acknowledged redemption is still there; with two gone it answers nothing, and the replicas refuse rather than guess.",
    }
}
