use leptos::prelude::*;

use super::Proof;

/// The whole page.
#[component]
pub fn App() -> impl IntoView {
    view! {
        <header class="masthead">
            <p class="kicker">"MCP 2026-07-28 · SEP-2322"</p>
            <h1 data-testid="title">"MRTR Lab"</h1>
            <p class="lede">
                "An MCP server may no longer interrupt a call to ask the user something. Instead it "
                "finishes the call early with "<code>"resultType: \"input_required\""</code>", listing its "
                "questions and handing the client a signed ticket, "<code>"requestState"</code>
                ", that holds the work done so far. The client gets the answers and sends the same "
                "request again, with a new id, the answers and the ticket exactly as it was. Because "
                "the ticket carries the state, any replica that holds the key can finish the job, and "
                "because it is signed, nobody can change what it says. This lab runs a real Rust MCP "
                "server and client in your browser so you can watch it happen, and try to break it."
            </p>
        </header>
        <main id="main">
            <Proof/>
        </main>
        <footer class="colophon">
            <p>"Everything on this page is computed by the lab's protocol core, compiled to WebAssembly."</p>
        </footer>
    }
}
