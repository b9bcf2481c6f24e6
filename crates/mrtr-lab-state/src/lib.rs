//! # mrtr-lab-state
//!
//! The page's state: plain types with methods, between the world and the views, tested
//! natively, with no web dependency. The page (`mrtr-lab`) shows them; the fuzz targets read
//! with them what a reader pastes or links. The one Leptos piece, the deep link as a store
//! (`reactive_stores::Store`, field by field), comes with the `store` feature, which the page
//! turns on.

pub mod audit_report;
pub mod checks_view;
pub mod clock_axis;
pub mod code;
pub mod embed;
pub mod geometry;
pub mod glossary;
pub mod highlight;
pub mod json_view;
pub mod lang;
pub mod link;
pub mod live;
pub mod live_audit;
pub mod live_moves;
pub mod mounts;
pub mod playback;
pub mod quiz;
pub mod scorm;
pub mod sdk_table;
pub mod spec_rules;
pub mod stage;
pub mod transcript;

#[cfg(test)]
mod size_rules {
    use std::path::Path;

    fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }

    /// Reading a float with `str::parse` pulls the standard library's float reader into the
    /// page's module: 15 KB of gzipped wasm each of the two times it crept in (measured). The
    /// page and the crates it links read numbers as integers or through serde_json instead.
    #[test]
    fn the_page_never_parses_floats_with_str_parse() {
        let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."));
        let mut files = Vec::new();
        for d in [
            "src",
            "crates/mrtr-lab-state/src",
            "crates/mrtr-core/src",
            "crates/mrtr-world/src",
            "crates/mrtr-audit/src",
        ] {
            rust_files(&root.join(d), &mut files);
        }
        assert!(files.len() > 20);
        for f in files {
            let text = std::fs::read_to_string(&f).unwrap();
            for bad in [
                "parse::<f64>",
                "parse::<f32>",
                "f64::from_str",
                "f32::from_str",
            ] {
                // This file names them to forbid them.
                if f.ends_with("mrtr-lab-state/src/lib.rs") {
                    continue;
                }
                assert!(!text.contains(bad), "{} uses {bad}", f.display());
            }
        }
    }
}
