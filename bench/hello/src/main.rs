use leptos::prelude::*;

fn main() {
    leptos::mount::mount_to_body(|| view! { <h1 id="hello">"Hello, world"</h1> });
}
