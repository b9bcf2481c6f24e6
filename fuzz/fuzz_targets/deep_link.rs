//! The page's deep-link fragment: any text read as a link never panics, and a link written
//! back reads as the same link, with no note (parse(write(parse(x))) == parse(x)).
#![no_main]

use libfuzzer_sys::fuzz_target;
use mrtr_lab_state::link::Link;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (link, _) = Link::parse(text);
    let written = link.to_fragment();
    let (again, notes) = Link::parse(&written);
    assert!(notes.is_empty(), "{written:?} reads with notes {notes:?}");
    assert_eq!(again, link, "{written:?} reads as another link");
});
