//! Read the code: the deploy handler in each SDK (TypeScript, Python, Rust's rmcp) and in the
//! lab's own Rust, with the lines that run at the round trip's current step marked, and what
//! each SDK leaves to its author.

use leptos::prelude::*;

use super::roundtrip::NARROW;
use mrtr_audit::Status;
use mrtr_core::checks::Check;
use mrtr_world::checks::CheckWords;

use super::page_link::{use_link, EditLink};
use crate::state::code::{listings, marks, Lang, Listing, Mark, MarkKind, PhaseWords};
use crate::state::highlight::lines;
use crate::state::link::{LinkStoreFields, Widget};
use crate::state::sdk_table::{
    columns_note, guard_name, left_to_you, table, variants, Entry, Variant,
};
use crate::state::stage::trace_of;

fn tab_id(l: Lang) -> String {
    format!("code-tab-{}", l.id())
}

fn focus(id: &str) {
    if let Some(el) = document().get_element_by_id(id) {
        if let Ok(el) = wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(el) {
            let _ = el.focus();
        }
    }
}

/// One listing, highlighted; line numbers and callouts are drawn by CSS from attributes, so
/// the text of the `<pre>` is the file's text exactly (copy it and you have the file).
#[component]
fn Listing(listing: Listing, index: usize, lang: Lang, shown: Memo<Vec<Mark>>) -> impl IntoView {
    let rows = lines(listing.text, lang.syntax())
        .into_iter()
        .enumerate()
        .map(|(i, pieces)| {
            let n = listing.first_line + i;
            let marked = move || shown.with(|m| m.iter().position(|m| m.covers(index, n)));
            let callout = move || {
                shown.with(|m| {
                    m.iter()
                        .position(|m| m.listing == index && m.first == n)
                        .map(|k| (k + 1).to_string())
                })
            };
            let kind = move || {
                shown.with(|m| {
                    m.iter().find(|m| m.covers(index, n)).map(|m| match m.kind {
                        MarkKind::Runs => "cl mark-runs",
                        MarkKind::Checks => "cl mark-checks",
                    })
                })
            };
            let pieces = pieces
                .into_iter()
                .map(|(tok, text)| {
                    let class = tok.class();
                    if class.is_empty() {
                        text.into_any()
                    } else {
                        view! { <span class=class>{text}</span> }.into_any()
                    }
                })
                .collect_view();
            view! {
                <span class=move || kind().unwrap_or("cl") data-n=n data-callout=callout
                    data-marked=move || marked().map(|_| "1")>{pieces}"\n"</span>
            }
        })
        .collect_view();
    view! {
        <pre class="code" tabindex="0" data-testid="code-listing" data-path=listing.path
            aria-label=format!("{}, lines {} to {}", listing.path, listing.first_line, listing.last_line())><code>{rows}</code></pre>
    }
}

/// The deploy handler in four implementations, in step with the round trip: the tabs, the
/// step buttons, what runs now, the listings with their marks, and the SDK's table.
#[component]
pub fn ReadTheCode() -> impl IntoView {
    let link = use_link();
    let lang = link.lang();
    let trace = Memo::new(move |_| trace_of(link.knobs().get(), link.ending().get()));
    let titles = Memo::new(move |_| {
        trace.with(|t| t.steps.iter().map(|s| s.title.clone()).collect::<Vec<_>>())
    });
    let step = Memo::new(move |_| {
        let n = titles.with(Vec::len);
        link.step().get().min(n.saturating_sub(1))
    });
    // What the server's code does at this step, as the trace's events say.
    let phase = Memo::new(move |_| trace.with(|t| t.server_phase(step.get())));
    let seal = Memo::new(move |_| trace.with(|t| t.seal));
    let shown = Memo::new(move |_| marks(lang.get(), phase.get(), seal.get()));
    // Announced only when the reader works this widget, not while the round trip plays.
    let live = move || (link.widget().get() == Widget::Code).then_some("polite");
    view! {
        <div class="code-body">
            <CodeTabs/>
            <CodeSteps titles=titles step=step/>
            <div id="code-panel" role="tabpanel" aria-labelledby=move || tab_id(lang.get())>
                <div class="code-now" data-testid="code-now" role="status" aria-live=live>
                    <p><strong>{move || titles.with(|t| t.get(step.get()).cloned().unwrap_or_default())}</strong>" "{move || phase.get().summary(lang.get(), seal.get())}</p>
                    <CodeNotes shown=shown/>
                </div>
                <CodeListings shown=shown/>
                <SdkTable/>
            </div>
        </div>
    }
}

/// The implementations as tabs, moved between with the arrow keys, Home and End.
#[component]
fn CodeTabs() -> impl IntoView {
    let link = use_link();
    let lang = link.lang();
    let on_tab_key = move |ev: leptos::ev::KeyboardEvent| {
        let i = Lang::ALL.iter().position(|l| *l == lang.get()).unwrap_or(0);
        let n = Lang::ALL.len();
        let next = match ev.key().as_str() {
            "ArrowRight" => (i + 1) % n,
            "ArrowLeft" => (i + n - 1) % n,
            "Home" => 0,
            "End" => n - 1,
            _ => return,
        };
        ev.prevent_default();
        let l = Lang::ALL[next];
        link.edit(Widget::Code).lang().set(l);
        focus(&tab_id(l));
    };
    let tabs = Lang::ALL
        .into_iter()
        .map(|l| {
            let selected = move || lang.get() == l;
            view! {
                <button type="button" role="tab" id=tab_id(l) data-lang=l.id()
                    aria-selected=move || selected().to_string() aria-controls="code-panel"
                    tabindex=move || if selected() { "0" } else { "-1" }
                    title=l.label() on:click=move |_| link.edit(Widget::Code).lang().set(l)>{l.short()}</button>
            }
        })
        .collect_view();
    view! { <div class="code-tabs" role="tablist" aria-label="Implementation" on:keydown=on_tab_key>{tabs}</div> }
}

/// The round trip's steps, one button each: the same step as the round trip's.
#[component]
fn CodeSteps(titles: Memo<Vec<String>>, step: Memo<usize>) -> impl IntoView {
    let link = use_link();
    let steps = move || {
        titles
            .get()
            .into_iter()
            .enumerate()
            .map(|(i, title)| {
                let current = move || step.get() == i;
                view! {
                    <li><button type="button" data-step=i aria-pressed=move || current().to_string()
                        aria-label=title.clone() title=title
                        on:click=move |_| link.edit(Widget::Code).step().set(i)>{i + 1}</button></li>
                }
            })
            .collect_view()
    };
    view! {
        <div class="code-steps">
            <span id="code-steps-label">"Round-trip step"</span>
            <ol aria-labelledby="code-steps-label">{steps}</ol>
        </div>
    }
}

/// What runs at this step, one note per mark, each quoting its first line.
#[component]
fn CodeNotes(shown: Memo<Vec<Mark>>) -> impl IntoView {
    let lang = use_link().lang();
    let notes = move || {
        let shown_listings = listings(lang.get());
        shown
            .get()
            .into_iter()
            .enumerate()
            .map(|(k, m)| {
                let first = shown_listings
                    .get(m.listing)
                    .and_then(|l| l.text.lines().nth(m.first - l.first_line))
                    .unwrap_or("")
                    .trim()
                    .to_owned();
                let class = match m.kind {
                    MarkKind::Runs => "note-runs",
                    MarkKind::Checks => "note-checks",
                };
                let file = shown_listings.get(m.listing).map(|l| l.path).unwrap_or("");
                view! {
                    <li class=class><span class="callout-num" aria-hidden="true">{k + 1}</span>
                        <span class="where">{format!("{}, {}", file.rsplit('/').next().unwrap_or(file), m.lines_text())}</span>
                        " "<code class="first-line">{first}</code>" "{m.note}</li>
                }
            })
            .collect_view()
    };
    view! { <ol class="code-notes" data-testid="code-notes">{notes}</ol> }
}

/// The language's listings: the first open, the long second ones folded (every one on a
/// phone, where the notes quote the lines that run), each drawn when first opened.
#[component]
fn CodeListings(shown: Memo<Vec<Mark>>) -> impl IntoView {
    let lang = use_link().lang();
    // Read once: a listing folded or not stays so while the reader is on the page.
    let phone = web_sys::window()
        .and_then(|w| w.match_media(NARROW).ok().flatten())
        .is_some_and(|m| m.matches());
    move || {
        let l = lang.get();
        listings(l)
            .into_iter()
            .enumerate()
            .map(|(i, listing)| {
                let where_ = format!(", lines {}–{}: {}", listing.first_line, listing.last_line(), listing.caption);
                let path = listing.path;
                if !(listing.folded || phone) {
                    return view! { <div><p class="listing-caption"><code>{path}</code>{where_}</p><Listing listing=listing index=i lang=l shown=shown/></div> }.into_any();
                }
                // The summary says when lines in it are marked (opening it on its own would
                // move the page under the reader).
                let marked = move || {
                    let n = shown.with(|m| m.iter().filter(|m| m.listing == i).count());
                    (n > 0).then(|| format!(" ({n} marked at this step)"))
                };
                // Drawn when first opened: hundreds of highlighted pieces nobody asked for
                // would lengthen the page's start-up.
                let opened = RwSignal::new(false);
                view! {
                    <details class="more-code" on:toggle=move |_| opened.set(true)>
                        <summary><span class="listing-caption"><code>{path}</code>{where_}</span><span class="marked-count">{marked}</span></summary>
                        {move || opened.get().then(|| view! { <Listing listing=listing index=i lang=l shown=shown/> })}
                    </details>
                }
                .into_any()
            })
            .collect_view()
    }
}

/// What the SDK's example does for its author, from mrtr-audit's verdicts (folded to its
/// count); for the lab's own server, its checks in order.
#[component]
fn SdkTable() -> impl IntoView {
    let link = use_link();
    let lang = link.lang();
    move || {
        let l = lang.get();
        let Some(rows) = table(l) else {
            return view! {
                <div class="sdk-table" data-testid="sdk-table">
                    <p>"The lab's server runs every check in the core, before the handler sees the state, in this order (mrtr-audit passes every row against it in make interop):"</p>
                    <ol class="check-order">
                        {move || Check::ALL.into_iter().map(|c| view! { <li><strong>{c.short()}</strong>": "{c.question(link.knobs().with(|k| k.seal))}</li> }).collect_view()}
                    </ol>
                </div>
            }
            .into_any();
        };
        let columns = variants(l);
        let (left, tested) = left_to_you(&rows);
        let heads = columns
            .iter()
            .map(|c| view! { <th scope="col">{c.heading}<span class="evidence">{c.path.rsplit('/').next().unwrap_or(c.path)}</span></th> })
            .collect_view();
        let rows = rows.into_iter().map(|e| sdk_row(e, columns)).collect_view();
        view! {
            <details class="fold json-fold sdk-fold" data-testid="sdk-fold">
                <summary>{format!("What the {} does for you: in its example, mrtr-audit finds {left} of the {tested} protections it tested left to you", l.label())}</summary>
                {columns_note(l).map(|n| view! { <p class="sdk-columns">{n}</p> })}
                <table class="sdk-table" data-testid="sdk-table">
                    <caption>"mrtr-audit's verdicts on these servers in make interop"</caption>
                    <thead><tr><th scope="col">"Protection"</th>{heads}<th scope="col">"If the example leaves it to you"</th></tr></thead>
                    <tbody>{rows}</tbody>
                </table>
            </details>
        }
        .into_any()
    }
}

/// One protection of the SDK table: the verdict in each column, with its evidence, and the
/// advice.
fn sdk_row(e: Entry, columns: &[Variant]) -> impl IntoView {
    let cells = e
        .verdicts
        .iter()
        .zip(columns)
        .map(|(v, col)| {
            let evidence = v
                .evidence
                .iter()
                .map(|(id, x)| format!("{id}: {}", x.map_or("missing", Status::word)))
                .collect::<Vec<_>>()
                .join(", ");
            view! {
                <td data-server=col.server data-label=col.heading>
                    <span class=format!("cell {}", v.cell.class())>{v.cell.word(col.hardened)}</span>
                    <span class="evidence">{evidence}</span>
                </td>
            }
        })
        .collect_view();
    view! {
        <tr>
            <th scope="row">{guard_name(e.guard)}</th>
            {cells}
            <td class="advice">{e.advice}</td>
        </tr>
    }
}
