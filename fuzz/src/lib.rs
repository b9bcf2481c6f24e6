//! The page's pure state modules that read what a reader pastes or opens (the deep-link
//! fragment, an audit report), compiled from the app's own files in `src/state/`. The app
//! crate itself (`mrtr-lab`) builds natively too, but as a dependency it brings Leptos and
//! web-sys: about 150 more crates, which would more than double a cold fuzz build (one in
//! every clean-clone `make test`). Only these files and what they `use` are taken, unchanged.

#[path = "../../src/state"]
pub mod state {
    pub mod audit_report;
    pub mod code;
    pub mod highlight;
    pub mod lang;
    pub mod link;
    pub mod playback;
    pub mod sdk_table;
}
