//! The native step of route 2: the widget's first frame as HTML, on stdout.

use leptos::prelude::*;
use route_probe::RoundTripProbe;

fn main() {
    let owner = Owner::new();
    let html = owner.with(|| view! { <RoundTripProbe/> }.to_html());
    println!("{html}");
}
