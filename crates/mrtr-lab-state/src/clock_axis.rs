//! The timeline's clock: which stretch of time the axis shows, where a time sits on it, and
//! what a drag or a key makes of a handle. Pure: positions are in thousandths of the track.

/// The axis ends at one of these (seconds): a round number, at least half again the ticket's
/// lifetime, so the valid band never fills the track and late retries have room.
const SCALES: [u64; 8] = [60, 120, 180, 240, 300, 450, 600, 900];

/// The shortest and longest lifetime the TTL handle can set.
pub const TTL_MIN: u64 = 10;
/// The longest lifetime the TTL handle can set, in seconds.
pub const TTL_MAX: u64 = 600;

/// The axis's end for a ticket lifetime of `ttl` seconds.
pub fn scale_for(ttl: u64) -> u64 {
    let want = ttl.saturating_mul(3).div_ceil(2);
    SCALES
        .into_iter()
        .find(|s| *s >= want)
        .unwrap_or(SCALES[SCALES.len() - 1])
}

/// Where a time sits on an axis ending at `scale`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// Thousandths of the track from its start.
    On(u64),
    /// Past the axis's end: drawn as an arrow at the end, with its time written out.
    Off,
}

/// Where time `t` sits on an axis ending at `scale`: thousandths of the track, or off its end.
pub fn place(t: u64, scale: u64) -> Place {
    if t > scale {
        Place::Off
    } else {
        Place::On(t * 1000 / scale.max(1))
    }
}

/// The time under a pointer `x` pixels into a track `width` pixels wide (clamped to the axis).
pub fn time_at(x: f64, width: f64, scale: u64) -> u64 {
    if width.is_nan() || width <= 0.0 || !x.is_finite() {
        return 0;
    }
    let f = (x / width).clamp(0.0, 1.0);
    (f * scale as f64).round() as u64
}

/// What a key does to a handle at `t` whose range is `min..=max`: arrows move a second,
/// Page keys ten, Home and End go to the ends (as a native slider does).
pub fn key_move(key: &str, t: u64, min: u64, max: u64) -> Option<u64> {
    let next = match key {
        "ArrowLeft" | "ArrowDown" => t.saturating_sub(1),
        "ArrowRight" | "ArrowUp" => t.saturating_add(1),
        "PageDown" => t.saturating_sub(10),
        "PageUp" => t.saturating_add(10),
        "Home" => min,
        "End" => max,
        _ => return None,
    };
    Some(next.clamp(min, max))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_axis_leaves_room_past_expiry() {
        assert_eq!(scale_for(120), 180);
        assert_eq!(scale_for(10), 60);
        assert_eq!(scale_for(200), 300);
        assert_eq!(scale_for(600), 900);
        assert_eq!(scale_for(u64::MAX), 900);
        for ttl in TTL_MIN..=TTL_MAX {
            assert!(scale_for(ttl) * 2 >= ttl * 3, "ttl {ttl}");
        }
    }

    #[test]
    fn late_retries_sit_off_the_scale_instead_of_squeezing_it() {
        assert_eq!(place(0, 180), Place::On(0));
        assert_eq!(place(90, 180), Place::On(500));
        assert_eq!(place(180, 180), Place::On(1000));
        assert_eq!(place(300, 180), Place::Off);
    }

    #[test]
    fn a_drag_maps_pixels_to_seconds_and_stays_on_the_axis() {
        assert_eq!(time_at(150.0, 300.0, 180), 90);
        assert_eq!(time_at(-20.0, 300.0, 180), 0);
        assert_eq!(time_at(999.0, 300.0, 180), 180);
        assert_eq!(time_at(10.0, 0.0, 180), 0);
        assert_eq!(time_at(f64::NAN, 300.0, 180), 0);
    }

    #[test]
    fn keys_move_a_handle_like_a_slider() {
        assert_eq!(key_move("ArrowRight", 8, 0, 600), Some(9));
        assert_eq!(key_move("ArrowLeft", 0, 0, 600), Some(0));
        assert_eq!(key_move("PageUp", 595, 0, 600), Some(600));
        assert_eq!(key_move("Home", 120, 10, 600), Some(10));
        assert_eq!(key_move("End", 120, 10, 600), Some(600));
        assert_eq!(key_move("a", 1, 0, 600), None);
    }
}
