//! Where the round trip's diagram draws things: pure functions of the actors and of time,
//! unit-tested, so the SVG components only bind numbers. They belong to the page (the native
//! server never draws), so they live beside the stage that uses them.

use mrtr_world::actor::Actor;
use mrtr_world::trace::{Event, EventKind};

/// The wide diagram's coordinate box.
pub const VIEW_W: f64 = 760.0;
/// The wide diagram's height, in user units.
pub const VIEW_H: f64 = 410.0;

/// A row of replica B's checks, in user units.
pub const CHECK_ROW: f64 = 19.0;

/// Left to right on wide screens; top to bottom on phones, where a wide diagram would
/// shrink its labels below reading size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Layout {
    /// Left to right (wide screens).
    Wide,
    /// Top to bottom (phones).
    Tall,
}

impl Layout {
    /// The layout's coordinate box: width and height, in user units.
    pub fn view_box(self) -> (f64, f64) {
        match self {
            Layout::Wide => (VIEW_W, VIEW_H),
            Layout::Tall => (360.0, 720.0),
        }
    }

    /// The layout's name (`wide` or `tall`).
    pub fn id(self) -> &'static str {
        match self {
            Layout::Wide => "wide",
            Layout::Tall => "tall",
        }
    }

    /// The centre of an actor's box.
    pub fn position(self, actor: Actor) -> (f64, f64) {
        match self {
            Layout::Wide => position(actor),
            Layout::Tall => match actor {
                Actor::Host => (180.0, 50.0),
                Actor::Client => (180.0, 175.0),
                Actor::Balancer => (180.0, 320.0),
                Actor::ReplicaA => (95.0, 460.0),
                Actor::ReplicaB => (265.0, 460.0),
                Actor::Thief => (290.0, 215.0),
            },
        }
    }

    /// The host's frame, drawn around the user's node and the client's (in MCP the client
    /// lives inside the host): top-left corner, width and height.
    pub fn host_frame(self) -> (f64, f64, f64, f64) {
        match self {
            Layout::Wide => (6.0, 100.0, 336.0, 104.0),
            Layout::Tall => (14.0, 6.0, 332.0, 226.0),
        }
    }

    /// Where replica B's first check is written; the rest follow down by [`CHECK_ROW`].
    pub fn checks_at(self) -> (f64, f64) {
        let (x, y) = self.position(Actor::ReplicaB);
        (x, y + 66.0)
    }

    /// Where the ticket sits while an actor holds it: under the actor's note.
    pub fn held_at(self, actor: Actor) -> (f64, f64) {
        let (x, y) = self.position(actor);
        (x, y + 64.0)
    }

    /// The card that shows what the ticket says: top-left corner and width.
    pub fn ticket_card(self) -> (f64, f64, f64) {
        match self {
            Layout::Wide => (20.0, 300.0, 400.0),
            Layout::Tall => (12.0, 636.0, 336.0),
        }
    }

    /// The host's prompt, as the user sees it, beside the user's node: top-left corner,
    /// width and height.
    pub fn prompt_box(self) -> (f64, f64, f64, f64) {
        match self {
            Layout::Wide => (8.0, 14.0, 320.0, 88.0),
            Layout::Tall => (20.0, 78.0, 320.0, 68.0),
        }
    }

    /// Where a message travelling `from` → `to` is at `progress`.
    pub fn message_point(self, from: Actor, to: Actor, progress: f64) -> (f64, f64) {
        let (x0, y0) = self.position(from);
        let (x1, y1) = self.position(to);
        let t = ease(progress);
        (x0 + (x1 - x0) * t, y0 + (y1 - y0) * t)
    }
}

/// The centre of an actor's box in the wide layout.
pub fn position(actor: Actor) -> (f64, f64) {
    match actor {
        Actor::Host => (88.0, 150.0),
        Actor::Client => (258.0, 150.0),
        Actor::Balancer => (440.0, 150.0),
        Actor::ReplicaA => (660.0, 60.0),
        Actor::ReplicaB => (660.0, 240.0),
        Actor::Thief => (250.0, 290.0),
    }
}

/// Smooth start and stop.
pub fn ease(t: f64) -> f64 {
    let t = t.clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// Where a message travelling `from` → `to` is at `progress` (0 = leaving, 1 = arrived), in
/// the wide layout.
pub fn message_point(from: Actor, to: Actor, progress: f64) -> (f64, f64) {
    Layout::Wide.message_point(from, to, progress)
}

/// Within a step that plays for progress 0..1, which message is in flight and how far along
/// it is. Messages play one after another, each for an equal share of the step.
pub fn in_flight(events: &[Event], progress: f64) -> Option<(usize, f64)> {
    let sent: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| matches!(e.kind, EventKind::Sent { .. }))
        .map(|(i, _)| i)
        .collect();
    if sent.is_empty() || !(0.0..1.0).contains(&progress) {
        return None;
    }
    let share = 1.0 / sent.len() as f64;
    let slot = ((progress / share) as usize).min(sent.len() - 1);
    Some((sent[slot], (progress - slot as f64 * share) / share))
}

#[cfg(test)]
mod tests {
    use super::*;
    use mrtr_world::trace::MessageKind;
    use serde_json::json;

    #[test]
    fn messages_move_from_sender_to_receiver() {
        assert_eq!(
            message_point(Actor::Client, Actor::Balancer, 0.0),
            position(Actor::Client)
        );
        assert_eq!(
            message_point(Actor::Client, Actor::Balancer, 1.0),
            position(Actor::Balancer)
        );
        assert_eq!(
            message_point(Actor::Client, Actor::Balancer, 7.0),
            position(Actor::Balancer)
        );
        let (x, y) = message_point(Actor::Client, Actor::Balancer, 0.5);
        assert_eq!((x, y), (349.0, 150.0));
        let (x1, _) = message_point(Actor::Client, Actor::Balancer, 0.25);
        let (x2, _) = message_point(Actor::Client, Actor::Balancer, 0.75);
        assert!(x1 < x && x < x2);
    }

    #[test]
    fn actors_fit_the_view() {
        for a in Actor::ALL {
            let (x, y) = position(a);
            assert!(
                x > 40.0 && x < VIEW_W - 40.0 && y > 20.0 && y < VIEW_H - 20.0,
                "{a:?}"
            );
        }
    }

    #[test]
    fn the_client_is_drawn_inside_the_host_and_nothing_else_is() {
        for layout in [Layout::Wide, Layout::Tall] {
            let (fx, fy, fw, fh) = layout.host_frame();
            let (vw, vh) = layout.view_box();
            assert!(
                fx >= 0.0 && fy >= 0.0 && fx + fw <= vw && fy + fh <= vh,
                "{layout:?}"
            );
            // An actor's box is 140 × 48 around its centre, its note 40 below the centre.
            let inside = |a: Actor| {
                let (x, y) = layout.position(a);
                x - 70.0 >= fx && x + 70.0 <= fx + fw && y - 24.0 >= fy && y + 44.0 <= fy + fh
            };
            let overlaps = |a: Actor| {
                let (x, y) = layout.position(a);
                !(x + 70.0 < fx || x - 70.0 > fx + fw || y + 24.0 < fy || y - 24.0 > fy + fh)
            };
            assert!(inside(Actor::Host) && inside(Actor::Client), "{layout:?}");
            for a in [Actor::Balancer, Actor::ReplicaA, Actor::ReplicaB] {
                assert!(!overlaps(a), "{layout:?} {a:?}");
            }
        }
    }

    #[test]
    fn messages_in_a_step_play_in_turn() {
        let sent = |id| Event {
            id,
            at_s: 0,
            kind: EventKind::Sent {
                from: Actor::Client,
                to: Actor::Balancer,
                kind: MessageKind::Call,
                json: json!({}),
            },
        };
        let other = Event {
            id: 1,
            at_s: 0,
            kind: EventKind::Forgot {
                replica: Actor::ReplicaA,
            },
        };
        let events = vec![sent(0), other, sent(2)];
        assert_eq!(in_flight(&events, 0.0), Some((0, 0.0)));
        assert_eq!(in_flight(&events, 0.25), Some((0, 0.5)));
        assert_eq!(in_flight(&events, 0.5), Some((2, 0.0)));
        assert_eq!(in_flight(&events, 0.75), Some((2, 0.5)));
        assert_eq!(in_flight(&events, 1.0), None);
        assert_eq!(in_flight(&[], 0.5), None);
    }
}
