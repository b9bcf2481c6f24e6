//! The page's mount points and which of them have their widget: a set that start-up, links,
//! the reader coming near, printing and idle time only ever add to. The page renders one
//! portal per member, so a widget is built once and never taken down.
//!
//! The page is two WebAssembly modules ([`Module`]): the lesson, which every reader and every
//! embed of a lesson widget loads, and the implementers' tools, loaded only when one of their
//! slots is wanted (opened, approached, linked, embedded or printed), never on idle time.

use super::link::Widget;

/// The attribute on `<html>` that says how the tools are: "loading" (the lesson asked for
/// them), "ready" (every part drawn) or "failed" (the module did not arrive).
pub const TOOLS_ATTR: &str = "data-tools";
/// The event the tools send once every part is drawn.
pub const TOOLS_READY: &str = "mrtr-lab:tools-ready";

/// A place in index.html that a part of the app renders into (`data-mount="…"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Slot {
    /// A widget's mount point.
    Widget(Widget),
    /// The embed docs: a section of its own, not a widget a link can point at.
    EmbedDocs,
}

impl Slot {
    /// Every slot that holds a widget or the embed docs, in page order.
    pub const ALL: [Slot; 11] = [
        Slot::Widget(Widget::RoundTrip),
        Slot::Widget(Widget::Ticket),
        Slot::Widget(Widget::Bench),
        Slot::Widget(Widget::Task),
        Slot::Widget(Widget::Raw),
        Slot::Widget(Widget::Code),
        Slot::Widget(Widget::Rules),
        Slot::Widget(Widget::Quiz),
        Slot::Widget(Widget::Audit),
        Slot::Widget(Widget::Live),
        Slot::EmbedDocs,
    ];

    /// The `data-mount` value of its place, also the id of the section around it.
    pub fn id(self) -> &'static str {
        match self {
            Slot::Widget(w) => w.id(),
            Slot::EmbedDocs => "embed",
        }
    }

    /// The module that renders this slot.
    pub fn module(self) -> Module {
        match self {
            Slot::Widget(Widget::Audit | Widget::Live) => Module::Tools,
            _ => Module::Lesson,
        }
    }

    fn bit(self) -> u16 {
        let i = Slot::ALL.iter().position(|s| *s == self).unwrap_or(0);
        1 << i
    }
}

/// One of the page's two WebAssembly modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Module {
    /// What a learner reads: loaded by every visit and every lesson widget's embed.
    Lesson,
    /// What an implementer opens: loaded when one of its slots is first wanted.
    Tools,
}

/// A set of slots.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slots(u16);

impl Slots {
    /// Every slot.
    pub fn all() -> Slots {
        Slot::ALL
            .into_iter()
            .map(Slots::of)
            .fold(Slots::default(), Slots::union)
    }

    /// Every slot that `module` renders.
    pub fn of_module(module: Module) -> Slots {
        Slot::ALL
            .into_iter()
            .filter(|s| s.module() == module)
            .map(Slots::of)
            .fold(Slots::default(), Slots::union)
    }

    /// The slots of this set that `module` renders.
    pub fn only(self, module: Module) -> Slots {
        Slots(self.0 & Slots::of_module(module).0)
    }

    /// True when the set has no slot.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The set holding `s` alone.
    pub fn of(s: Slot) -> Slots {
        Slots(s.bit())
    }

    /// This set with `s` added.
    pub fn with(self, s: Slot) -> Slots {
        Slots(self.0 | s.bit())
    }

    /// Every slot of either set.
    pub fn union(self, other: Slots) -> Slots {
        Slots(self.0 | other.0)
    }

    /// True when `s` is in the set.
    pub fn contains(self, s: Slot) -> bool {
        self.0 & s.bit() != 0
    }

    /// True when every slot of `other` is in this set.
    pub fn covers(self, other: Slots) -> bool {
        self.0 & other.0 == other.0
    }

    /// The members, in page order.
    pub fn iter(self) -> impl Iterator<Item = Slot> {
        Slot::ALL.into_iter().filter(move |s| self.contains(*s))
    }

    /// The first slot of `wanted`, in page order, that this set lacks.
    pub fn next_missing(self, wanted: Slots) -> Option<Slot> {
        wanted.iter().find(|s| !self.contains(*s))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_widget_has_a_slot_and_the_ids_are_distinct() {
        for w in Widget::ALL {
            assert!(Slot::ALL.contains(&Slot::Widget(w)), "{w:?}");
        }
        let mut ids: Vec<_> = Slot::ALL.iter().map(|s| s.id()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), Slot::ALL.len());
    }

    #[test]
    fn a_set_grows_in_page_order_and_knows_when_it_is_whole() {
        let all = Slots::all();
        let mut s = Slots::default();
        let mut order = Vec::new();
        while let Some(next) = s.next_missing(all) {
            order.push(next);
            s = s.with(next);
        }
        assert_eq!(order, Slot::ALL);
        assert!(s.covers(all));
        assert_eq!(s, all);
    }

    #[test]
    fn an_embed_is_whole_with_its_one_widget() {
        let quiz = Slots::of(Slot::Widget(Widget::Quiz));
        assert!(!Slots::default().covers(quiz));
        assert!(quiz.covers(quiz));
        assert!(Slots::all().covers(quiz));
        assert!(!quiz.covers(Slots::all()));
        let both = quiz.union(Slots::of(Slot::EmbedDocs));
        assert_eq!(
            both.iter().collect::<Vec<_>>(),
            [Slot::Widget(Widget::Quiz), Slot::EmbedDocs]
        );
        assert_eq!(
            both.next_missing(Slots::all()),
            Some(Slot::Widget(Widget::RoundTrip))
        );
    }

    #[test]
    fn the_two_modules_split_the_slots_and_the_lesson_has_what_learners_read() {
        let lesson = Slots::of_module(Module::Lesson);
        let tools = Slots::of_module(Module::Tools);
        assert_eq!(lesson.union(tools), Slots::all());
        assert!(lesson.only(Module::Tools).is_empty());
        for w in [
            Widget::RoundTrip,
            Widget::Ticket,
            Widget::Bench,
            Widget::Rules,
            Widget::Raw,
            Widget::Quiz,
        ] {
            assert!(lesson.contains(Slot::Widget(w)), "{w:?}");
        }
        for w in [Widget::Audit, Widget::Live] {
            assert_eq!(Slot::Widget(w).module(), Module::Tools, "{w:?}");
        }
        // Idle time adds the lesson's slots only: the tools wait to be asked for.
        let mut s = Slots::default();
        while let Some(next) = s.next_missing(lesson) {
            s = s.with(next);
        }
        assert!(s.only(Module::Tools).is_empty());
        assert!(Slots::default().is_empty() && !s.is_empty());
    }
}
